/**
 * Where the client's credentials may go (CLI-AUTH-3, issue 27): a card is JSON its server chose,
 * so an unverified card could name any interface URL and receive the caller's bearer token or
 * API key. Credentials are attached only to an interface whose origin the caller vouched for:
 * the origin of the URL it connected to, one it listed in `credentialOrigins`, or one of the
 * interfaces of a card whose signature was verified (CLI-SIGN-4). The OAuth 2.0 token URL
 * follows the same rule (CLI-AUTH-2).
 */
import type { AgentCard } from '../model/schema.js';
import type { Transport } from '../bindings/transport.js';
import { A2AUntrustedInterfaceError } from '../errors/client-errors.js';

/**
 * The origin credentials are scoped by: `scheme://host[:port]` (http and https as the URL
 * standard writes them, default ports left out); a gRPC target `host:port` (no scheme) is
 * `grpc://host:port`. Undefined when `url` names no host.
 */
export function credentialOrigin(url: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `grpc://${url}`;
  if (!URL.canParse(withScheme)) return undefined;
  const u = new URL(withScheme);
  if (!u.host) return undefined;
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  // Non-special schemes keep the host as written: compare it in lower case.
  return `${u.protocol}//${u.host.toLowerCase()}`;
}

/**
 * The origins the caller vouched for, and the interface URL of each transport made from a card.
 * A transport the caller made itself (handed to the `A2AClient` constructor) is not tracked:
 * its endpoint is the caller's own choice.
 */
export class CredentialScope {
  readonly #origins = new Set<string>();
  #given: string | undefined;
  readonly #interfaceUrls = new WeakMap<Transport, string>();

  /** @param listed the caller's `credentialOrigins` */
  constructor(listed: readonly string[] = []) {
    for (const entry of listed) {
      const origin = credentialOrigin(entry);
      if (!origin) throw new TypeError(`credentialOrigins: ${JSON.stringify(entry)} is not an origin`);
      this.#origins.add(origin);
    }
  }

  /** The client was connected to `url` (a base or card URL): its origin may have credentials. */
  connectedTo(url: string): void {
    this.#given = credentialOrigin(url);
    if (this.#given) this.#origins.add(this.#given);
  }

  /** Records that `transport` reaches the card's interface at `url`; returns `transport`. */
  track<T extends Transport>(transport: T, url: string): T {
    this.#interfaceUrls.set(transport, url);
    return transport;
  }

  /**
   * Throws {@link A2AUntrustedInterfaceError} unless credentials may go through `transport`: it
   * is the caller's own, or its interface's origin was given or listed, or `verifiedCard` (the
   * public card, when its signature was verified) names an interface there.
   */
  check(transport: Transport, verifiedCard: AgentCard | undefined): void {
    const url = this.#interfaceUrls.get(transport);
    if (url === undefined) return;
    const origin = credentialOrigin(url);
    if (origin && this.#origins.has(origin)) return;
    if (origin && verifiedCard?.supportedInterfaces.some((i) => credentialOrigin(i.url) === origin)) return;
    const reached = this.#given ? `the origin you connected to (${this.#given})` : 'an origin you gave';
    throw new A2AUntrustedInterfaceError(
      `credentials are not sent to the interface ${url}: ${origin ?? 'its origin'} is not ${reached}, ` +
        `not in credentialOrigins, and no verified card names it. Add it to credentialOrigins ` +
        `(a2a: --credential-origin ${origin ?? url}) if you trust it, or verify the card's signature (card.verify)`,
      url,
      origin,
    );
  }
}
