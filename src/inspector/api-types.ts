/**
 * The JSON the inspector's backend and its page exchange. Types only: the page bundle imports
 * them too, so nothing here may load node modules.
 */
import type { AgentCard } from '../model/schema.js';
import type { WireExchange } from './wire.js';

/** Which credentials to send. */
export type AuthSettings =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'apiKey'; key: string; scheme?: string }
  | { kind: 'oauth2'; clientId: string; clientSecret: string; tokenUrl?: string; scopes?: string[] };

/** The connection settings of the page. */
export interface ConnectSettings {
  /** The agent's base URL or card URL. */
  url: string;
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`; absent: the card's order decides. */
  binding?: string;
  /** Overrides the tenant of every interface. */
  tenant?: string;
  auth?: AuthSettings;
  /** Custom headers sent on every call and on the card fetch. */
  headers?: Record<string, string>;
  /** Extension URIs requested (A2A-Extensions). */
  extensions?: string[];
  /** Sent as A2A-Version instead of 1.0 (to see how an agent answers another version). */
  a2aVersion?: string;
  /** A JWKS URL trusted to verify the card's signatures. */
  trustedJwks?: string;
  /**
   * More origins the credentials may go to, beside the agent URL's and (when the card verifies)
   * its interfaces' (CLI-AUTH-3).
   */
  credentialOrigins?: string[];
}

/** Signature status of a card. */
export interface SignatureStatus {
  status: 'verified' | 'failed' | 'unsigned' | 'unchecked';
  message: string;
  kid?: string;
}

/** A problem of the card, by field path. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** The card as the Card view shows it. */
export interface CardReport {
  /** The URL the card was read from. */
  url: string;
  /** The JSON exactly as received. */
  raw: unknown;
  /** The card in its v1.0 form (a v0.3 card translated); absent when it is unusable. */
  card?: AgentCard;
  /** True for an A2A v0.3 card. */
  isV03: boolean;
  notes: string[];
  problems: FieldProblem[];
  signature: SignatureStatus;
}

/** The answer of `POST /api/connect`. */
export interface ConnectResult {
  session: string;
  /** Absent when no card could be read. */
  card?: CardReport;
  /** The binding and interface URL in use, once a client exists. */
  binding?: string;
  interfaceUrl?: string;
  /** The protocol version of that interface (`1.0`, or `0.3` through the compatibility layer). */
  interfaceVersion?: string;
  /** Why the agent cannot be used, in words (unreachable, not A2A, invalid card...). */
  error?: string;
}

/** An error as the API reports it. */
export interface ApiError {
  /** The error class (`TaskNotFoundError`, `A2ATransportError`...). */
  type: string;
  message: string;
  /** The A2A error code, when the agent sent one. */
  code?: number | string;
}

/** One event of a stream as the page receives it. */
export interface StreamItem {
  /** 1-based position in the stream. */
  index: number;
  /** Milliseconds since the epoch. */
  at: number;
  /** The StreamResponse member: task, message, statusUpdate, artifactUpdate. */
  kind: string;
  /** The task state the event carries, if any. */
  state?: string;
  /** The event (a tagged StreamEvent: `{ kind, [kind]: value }`). */
  event: Record<string, unknown>;
  /** The wire exchange that carried it. */
  wireSeq?: number;
}

/** A summary of a wire exchange, for lists and the live feed. */
export interface WireSummary {
  seq: number;
  session: string;
  binding: string;
  method?: string;
  url: string;
  httpMethod: string;
  status?: number;
  events: number;
  problems: number;
  error?: string;
  startedAt: number;
  endedAt?: number;
}

/** One push notification the built-in receiver got. */
export interface PushDelivery {
  seq: number;
  at: number;
  receiver: string;
  taskId?: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered. */
  answered: number;
  /** Token check: ok, wrong, or none expected. */
  token: 'ok' | 'wrong' | 'missing';
  signature: { status: 'verified' | 'failed' | 'unsigned' | 'unchecked'; message: string };
  /** Problems of the body as a StreamResponse. */
  problems: FieldProblem[];
}

/** A receiver made by `POST /api/push/receivers`. */
export interface PushReceiverInfo {
  id: string;
  url: string;
  taskId: string;
  configId: string;
}

/** An item of the live feed (`GET /api/feed`). */
export type FeedItem = { type: 'wire'; wire: WireSummary } | { type: 'push'; push: PushDelivery };

export type { WireExchange };
