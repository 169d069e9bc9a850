/**
 * One connection of the page to an agent: the card as received (validated, signature checked),
 * and an {@link A2AClient} whose every exchange is recorded in the inspector's wire log.
 */
import { A2AClient } from '../client/client.js';
import { AgentCardResolver, cardUrlOf } from '../client/card-resolver.js';
import {
  apiKeyAuth,
  bearerAuth,
  clientCredentialsTokenUrl,
  oauth2ClientCredentials,
  type AuthHandler,
} from '../client/auth.js';
import { verifyAgentCard, verifiedCardJson } from '../client/card-signature.js';
import { credentialOrigin } from '../client/credential-scope.js';
import { parseAgentCard } from '../bindings/card-parse.js';
import type { ClientInterceptor } from '../client/interceptor.js';
import { selectInterface, type BindingName } from '../client/binding-selection.js';
import { isV03Card } from '../bindings/compat-v03/card.js';
import { WIRE_VALIDATORS } from '../model/validators.js';
import type { AgentCard } from '../model/schema.js';
import type {
  CardReport,
  ConnectResult,
  ConnectSettings,
  FieldProblem,
  SignatureStatus,
} from './api-types.js';
import { capturingFetch, grpcRecorder, type WireLog } from './wire.js';
import { describeError } from './errors.js';

const BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/**
 * The auth handler for the page's settings. OAuth2 gets its token URL from the settings or,
 * when that field is empty, from `verifiedCard` only: a card nobody verified could name any
 * token endpoint and be sent the client secret (CLI-AUTH-2).
 */
function authOf(
  auth: ConnectSettings['auth'],
  fetchImpl: typeof fetch,
  verifiedCard?: AgentCard,
): AuthHandler | undefined {
  switch (auth?.kind) {
    case 'bearer':
      return auth.token ? bearerAuth(auth.token) : undefined;
    case 'apiKey':
      return auth.key ? apiKeyAuth(auth.key, auth.scheme ? { scheme: auth.scheme } : {}) : undefined;
    case 'oauth2': {
      const tokenUrl = auth.tokenUrl || (verifiedCard && clientCredentialsTokenUrl(verifiedCard));
      if (!tokenUrl) return undefined;
      return oauth2ClientCredentials({
        clientId: auth.clientId,
        clientSecret: auth.clientSecret,
        tokenUrl,
        ...(auth.scopes ? { scopes: auth.scopes } : {}),
        fetch: fetchImpl,
      });
    }
    default:
      return undefined;
  }
}

/** Sets A2A-Version on every call when the page asks for another version than 1.0. */
function versionInterceptor(version: string): ClientInterceptor {
  return (next) => (call) =>
    next({
      ...call,
      options: { ...call.options, headers: { ...call.options.headers, 'A2A-Version': version } },
    });
}

/** The card's problems by field path, per the model's AgentCard schema. */
function cardProblems(raw: unknown): FieldProblem[] {
  const checked = WIRE_VALIDATORS.AgentCard.check(raw, 50);
  return checked.ok
    ? []
    : checked.violations.map((v) => ({ path: v.path || '(card)', message: v.description }));
}

/** The signature's status and, when it verified, the JSON it covers (CLI-SIGN-4). */
async function signatureOf(
  raw: unknown,
  trustedJwks: string | undefined,
): Promise<SignatureStatus & { verifiedJson?: Record<string, unknown> }> {
  const signatures = (raw as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0)
    return { status: 'unsigned', message: 'the card carries no signature' };
  if (!trustedJwks)
    return {
      status: 'unchecked',
      message: `${signatures.length} signature(s); give a trusted JWKS URL in the connection settings to verify`,
    };
  try {
    const result = await verifyAgentCard(raw, { jwks: trustedJwks });
    if (result.ok)
      return {
        status: 'verified',
        message: `verified with key ${result.kid} (${result.alg})`,
        kid: result.kid,
        verifiedJson: verifiedCardJson(result, raw).verifiedJson,
      };
    return {
      status: 'failed',
      message: `${result.reason}: ${result.message}; ${result.problems.join('; ')}`,
    };
  } catch (error) {
    return { status: 'failed', message: (error as Error).message };
  }
}

function statusOnly(s: SignatureStatus & { verifiedJson?: unknown }): SignatureStatus {
  const { verifiedJson: _json, ...status } = s;
  return status;
}

/** The card with the page's tenant on every interface. */
function withTenant(card: AgentCard, tenant: string | undefined): AgentCard {
  if (!tenant) return card;
  return { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, tenant })) };
}

/**
 * The origins the session's credentials may go to (CLI-AUTH-3): the agent URL's (the card is
 * handed to the client as an object, which lends none), the interfaces of a card whose signature
 * verified, and those the user listed; or the error to show for an entry that is not an origin.
 */
function credentialOriginsOf(
  agentUrl: string,
  listed: unknown,
  verifiedCard: AgentCard | undefined,
): string[] | string {
  const extra = Array.isArray(listed) ? (listed as unknown[]) : listed === undefined ? [] : [listed];
  for (const entry of extra) {
    if (typeof entry !== 'string' || !credentialOrigin(entry))
      return `credential origins: not an origin: ${JSON.stringify(entry)}`;
  }
  const signed = (verifiedCard?.supportedInterfaces ?? [])
    .map((i) => i.url)
    .filter((u) => credentialOrigin(u));
  return [agentUrl, ...signed, ...(extra as string[])];
}

/** A page's connection to one agent. */
export class Session {
  client: A2AClient | undefined;
  card: CardReport | undefined;
  /** Streams running for the page, so close() can end them. */
  readonly streams = new Set<AbortController>();

  constructor(
    readonly id: string,
    readonly settings: ConnectSettings,
    private readonly log: WireLog,
  ) {}

  /** What a fetch of this session is, for the wire log. */
  private bindingOf = (url: string, body: string): string => {
    if (url.includes('/.well-known/')) return 'CARD';
    const iface = this.client?.card?.supportedInterfaces.find((i) => url.startsWith(i.url));
    if (iface) return iface.protocolBinding;
    return body.includes('"jsonrpc"') ? 'JSONRPC' : 'HTTP+JSON';
  };

  /** Reads the card and makes the client; every failure becomes a sentence in `error`. */
  async connect(): Promise<ConnectResult> {
    const s = this.settings;
    const fetchImpl = capturingFetch(this.log, this.id, this.bindingOf);
    const result: ConnectResult = { session: this.id };
    let url: string;
    try {
      url = /^[a-z][a-z0-9+.-]*:\/\//i.test(s.url.trim()) ? s.url.trim() : `http://${s.url.trim()}`;
      cardUrlOf(url);
    } catch {
      return { ...result, error: `not a URL: ${s.url}` };
    }
    const headers = { ...s.headers };
    if (s.auth?.kind !== 'oauth2') {
      // OAuth2 may need the card's token URL first: the card is fetched without it.
      const auth = authOf(s.auth, fetchImpl);
      if (auth) Object.assign(headers, (await auth.credentials({ method: 'GetAgentCard' })).headers);
    }
    let raw: unknown;
    const resolver = new AgentCardResolver({
      fetch: fetchImpl,
      headers,
      defaultTtlMs: 0,
      verify: async (_card, json) => {
        raw = json;
      },
    });
    let card: AgentCard;
    let notes: string[];
    let cardUrl: string;
    const startSeq = this.log.list().at(-1)?.seq ?? 0;
    try {
      const resolved = await resolver.resolve(url, { noCache: true });
      card = resolved.card;
      notes = resolved.notes;
      cardUrl = resolved.url;
    } catch (error) {
      const last = this.log
        .list(startSeq, this.id)
        .filter((e) => e.binding === 'CARD')
        .at(-1);
      const body = last?.response?.body;
      const described = describeError(error);
      if (last?.response && body !== undefined && last.response.status === 200) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          const type = last.response.headers['content-type'] ?? 'no content type';
          return {
            ...result,
            error: `not an A2A agent: ${last.request.url} answered ${type}, not a JSON agent card`,
          };
        }
        const isV03 =
          typeof parsed === 'object' && parsed !== null && isV03Card(parsed as Record<string, unknown>);
        this.card = {
          url: last.request.url,
          raw: parsed,
          isV03,
          notes: [],
          problems: cardProblems(parsed),
          signature: statusOnly(await signatureOf(parsed, s.trustedJwks)),
        };
        return { ...result, card: this.card, error: `the agent card is invalid: ${described.message}` };
      }
      return { ...result, error: `cannot read the agent card: ${described.message}` };
    }
    const isV03 = isV03Card(raw as Record<string, unknown>);
    const { verifiedJson, ...signature } = await signatureOf(raw, s.trustedJwks);
    let verifiedCard: AgentCard | undefined;
    if (verifiedJson) {
      // The client works from what the signature covers, never from fields added after signing.
      try {
        verifiedCard = parseAgentCard(verifiedJson, cardUrl);
        card = verifiedCard;
      } catch (error) {
        return { ...result, error: `the signed agent card is invalid: ${describeError(error).message}` };
      }
    }
    this.card = {
      url: cardUrl,
      raw,
      card,
      isV03,
      notes,
      // A v0.3 card is checked in its translated v1.0 form (the v0.3 schema is not ours).
      problems: cardProblems(isV03 ? card : raw),
      signature,
    };
    result.card = this.card;
    const auth = authOf(s.auth, fetchImpl, verifiedCard);
    if (s.auth?.kind === 'oauth2' && !auth) {
      return {
        ...result,
        error: verifiedCard
          ? 'OAuth2: the token URL field is empty and the verified card declares no client-credentials flow'
          : card.securitySchemes && clientCredentialsTokenUrl(card)
            ? "OAuth2: the token URL field is empty, and the card's token URL is used only when the card's " +
              'signature verifies (give a trusted JWKS URL) — the client secret was not sent'
            : 'OAuth2: fill in the token URL field (the card declares no client-credentials flow)',
      };
    }
    const credentialOrigins = credentialOriginsOf(url, s.credentialOrigins, verifiedCard);
    if (typeof credentialOrigins === 'string') return { ...result, error: credentialOrigins };
    const bindings = s.binding && BINDINGS.includes(s.binding) ? [s.binding as BindingName] : undefined;
    const interceptors: ClientInterceptor[] = [grpcRecorder(this.log, this.id)];
    if (s.a2aVersion && s.a2aVersion !== '1.0') interceptors.unshift(versionInterceptor(s.a2aVersion));
    try {
      this.client = await A2AClient.connect(withTenant(card, s.tenant), {
        fetch: fetchImpl,
        headers: s.headers,
        ...(s.extensions?.length ? { extensions: s.extensions } : {}),
        ...(auth ? { auth, credentialOrigins } : {}),
        ...(bindings ? { bindings } : {}),
        interceptors,
        // What the user does is what goes on the wire: one attempt, one interface.
        retry: false,
        failover: false,
        timeoutMs: 30_000,
        streamIdleTimeoutMs: 120_000,
      });
    } catch (error) {
      return {
        ...result,
        error: `the card offers no interface the inspector can use: ${describeError(error).message}`,
      };
    }
    result.binding = this.client.binding;
    // The same choice the client made (failover is off, so it keeps it).
    const chosen = selectInterface(card, bindings);
    result.interfaceUrl = chosen.url;
    result.interfaceVersion = chosen.protocolVersion;
    return result;
  }

  /** The client, or an error the page can show. */
  requireClient(): A2AClient {
    if (!this.client) throw new Error('not connected: connect to an agent first');
    return this.client;
  }

  /** Ends the session's streams and connections. */
  async close(): Promise<void> {
    for (const c of this.streams) c.abort();
    this.streams.clear();
    await this.client?.close();
  }
}
