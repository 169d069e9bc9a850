/**
 * The transport-neutral view of a request that authentication reads (method, URL, headers as a
 * case-insensitive multi-map, cookies, the peer's TLS certificate), and the `authenticate` hook
 * every binding applies to it. A contract: the hosting layer builds the view from node:http or a
 * fetch `Request` (`src/server/auth/request.ts`), the gRPC binding from call metadata.
 */
import type { PeerCertificate as NodePeerCertificate } from 'node:tls';
import { ANONYMOUS, type Principal } from '../core/context.js';

/** Header values from any source; `undefined` entries are skipped, Buffers (gRPC `-bin`) too. */
export type HeaderInit =
  | Headers
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | Buffer | readonly (string | Buffer)[] | undefined>>;

/** Case-insensitive, read-only multi-map of header (or gRPC metadata) values. */
export class HeaderMap {
  readonly #values = new Map<string, string[]>();

  /** At most `maxValues` values are kept (headers are already size-limited by the server). */
  constructor(init?: HeaderInit, maxValues = 512) {
    if (!init) return;
    let count = 0;
    const add = (name: string, value: unknown): void => {
      if (typeof value !== 'string' || count >= maxValues) return;
      count++;
      const key = name.toLowerCase();
      const list = this.#values.get(key);
      if (list) list.push(value);
      else this.#values.set(key, [value]);
    };
    if (isIterable(init)) {
      for (const [name, value] of init) add(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (Array.isArray(value)) for (const v of value as unknown[]) add(name, v);
      else add(name, value);
    }
  }

  /** The first value of `name`, if any. */
  get(name: string): string | undefined {
    return this.#values.get(name.toLowerCase())?.[0];
  }

  /** Every value of `name`, in arrival order. */
  getAll(name: string): readonly string[] {
    return this.#values.get(name.toLowerCase()) ?? [];
  }

  /** Whether a header named `name` (any case) was sent. */
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
}

function isIterable(value: HeaderInit): value is Iterable<readonly [string, string]> {
  return typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function';
}

/** The client certificate of a TLS connection, as far as authentication needs it. */
export interface PeerCertificate {
  /**
   * Subject distinguished name, RDNs joined by `,` in certificate order (`C=DE,O=Acme,CN=alice`),
   * values escaped as in RFC 4514 (`CN=Smith\, Ann`).
   */
  readonly subject: string;
  /** The subject's common name, when it has one. */
  readonly commonName?: string;
  /** Issuer distinguished name, same format as `subject`. */
  readonly issuer: string;
  /** SHA-256 fingerprint (`AB:CD:...`). */
  readonly fingerprint256: string;
  /** True when the TLS layer verified the chain against the server's trusted CAs. */
  readonly authorized: boolean;
  /** Why the chain did not verify, when it did not. */
  readonly authorizationError?: string;
  /** Not valid after this instant. */
  readonly validTo?: Date;
}

/** What authentication sees of a request, whatever the binding. */
export interface AuthRequest {
  /** HTTP method (`POST`), or `POST` for gRPC. */
  readonly method: string;
  /** The full request URL; query parameters carry API keys of `location: query`. */
  readonly url: URL;
  readonly headers: HeaderMap;
  /** Cookies from every `Cookie` header; the first occurrence of a name wins. */
  readonly cookies: ReadonlyMap<string, string>;
  /** The peer's certificate on a TLS connection that presented one. */
  readonly peerCertificate?: PeerCertificate;
  /**
   * An opaque id of the transport connection the request came on (one per TCP connection for
   * node:http, the peer address of the HTTP/2 connection for gRPC); absent when the runtime does
   * not expose connections (fetch). Used to scope anonymous callers per connection.
   */
  readonly connectionId?: string;
  /**
   * The peer's IP address (no port), when the runtime exposes it: anonymous callers are
   * limited per address (a new connection per request does not reset their limits).
   */
  readonly remoteAddress?: string;
}

/** Parts of an {@link AuthRequest} from which {@link createAuthRequest} builds one. */
export interface AuthRequestInit {
  method?: string;
  /** Absolute URL, or a path (resolved against `http://localhost`). @default '/' */
  url?: string | URL;
  headers?: HeaderInit | HeaderMap;
  peerCertificate?: PeerCertificate;
  connectionId?: string;
  remoteAddress?: string;
}

/** Builds an {@link AuthRequest}; cookies are parsed from the `Cookie` headers. */
export function createAuthRequest(init: AuthRequestInit = {}): AuthRequest {
  const headers = init.headers instanceof HeaderMap ? init.headers : new HeaderMap(init.headers);
  return {
    method: (init.method ?? 'POST').toUpperCase(),
    url: init.url instanceof URL ? init.url : new URL(init.url ?? '/', 'http://localhost'),
    headers,
    cookies: parseCookies(headers.getAll('cookie')),
    ...(init.peerCertificate ? { peerCertificate: init.peerCertificate } : {}),
    ...(init.connectionId !== undefined ? { connectionId: init.connectionId } : {}),
    ...(init.remoteAddress !== undefined ? { remoteAddress: init.remoteAddress } : {}),
  };
}

/**
 * The view of a node `tls.PeerCertificate`, e.g. grpc-js `call.getAuthContext().sslPeerCertificate`
 * (a gRPC server with `checkClientCertificate` only admits verified chains: pass `true`).
 */
export function peerCertificateFromNode(
  cert: NodePeerCertificate | Record<string, never> | undefined,
  authorized: boolean,
  authorizationError?: string,
): PeerCertificate | undefined {
  if (!cert || Object.keys(cert).length === 0 || !('subject' in cert)) return undefined;
  const validTo = cert.valid_to ? new Date(cert.valid_to) : undefined;
  return {
    subject: distinguishedName(cert.subject),
    ...(typeof cert.subject?.CN === 'string' ? { commonName: cert.subject.CN } : {}),
    issuer: distinguishedName(cert.issuer),
    fingerprint256: cert.fingerprint256,
    authorized,
    ...(authorizationError ? { authorizationError } : {}),
    ...(validTo && !Number.isNaN(validTo.getTime()) ? { validTo } : {}),
  };
}

function distinguishedName(dn: NodePeerCertificate['subject'] | undefined): string {
  if (!dn) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(dn)) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${key}=${escapeDnValue(String(v))}`);
  }
  return parts.join(',');
}

/**
 * An attribute value escaped as RFC 4514 §2.4 says (`,` `+` `"` `\` `<` `>` `;`, a leading `#`
 * or space, a trailing space, NUL), so that `CN=alice\,OU=eng` (one attribute) and
 * `CN=alice,OU=eng` (two) are different subjects (SRV-TRUST-8). Node hands the values unescaped.
 */
export function escapeDnValue(value: string): string {
  let out = value.replace(/[,+"\\<>;]/g, '\\$&').replaceAll('\u0000', '\\00');
  if (value.startsWith('#') || value.startsWith(' ')) out = `\\${out}`;
  if (value.length > 1 && value.endsWith(' ')) out = `${out.slice(0, -1)}\\ `;
  return out;
}

const MAX_COOKIES = 100;

/** Parses `Cookie` header values (RFC 6265 §5.4): `a=1; b="2"`; malformed pairs are skipped. */
export function parseCookies(headerValues: readonly string[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const header of headerValues) {
    for (const pair of header.split(';')) {
      if (out.size >= MAX_COOKIES) return out;
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      let value = pair.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (name && !out.has(name)) out.set(name, value);
    }
  }
  return out;
}

/**
 * Resolves the caller of a request: a principal, or a thrown A2AError (`UnauthenticatedError`,
 * `PermissionDeniedError`; a `challenges: string[]` property on it becomes `WWW-Authenticate`)
 * that the binding answers with instead of running the operation.
 */
export type Authenticate = (request: AuthRequest) => Principal | Promise<Principal>;

/**
 * The principal of a call: {@link ANONYMOUS} without a hook (the view is then never built),
 * else what `authenticate` returns for the view.
 */
export function principalOf(
  authenticate: Authenticate | undefined,
  view: () => AuthRequest,
): Principal | Promise<Principal> {
  return authenticate ? authenticate(view()) : ANONYMOUS;
}
