import type { Task } from '../model/schema.js';

/**
 * Errors raised by the client itself, apart from the protocol errors a server sends
 * (those are {@link A2AError} subclasses). Each says what went wrong in its message.
 */

/** Base class of client-side failures (network, timeout, bad response, discovery). */
export class A2AClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request did not reach the server or the connection broke (refused, reset, DNS...). */
export class A2ATransportError extends A2AClientError {
  /**
   * The network's error code when known (`ECONNREFUSED`, `ECONNRESET`, ...), not an A2A error
   * code (those are on {@link A2AError}).
   */
  readonly networkCode: string | undefined;
  /** HTTP status when the failure is an HTTP-level one without an A2A body (502, 503...). */
  readonly status: number | undefined;
  constructor(message: string, options: { cause?: unknown; networkCode?: string; status?: number } = {}) {
    super(message, { cause: options.cause });
    this.networkCode = options.networkCode;
    this.status = options.status;
  }
}

/** A call or a stream exceeded its time limit (call timeout, stream idle timeout, deadline). */
export class A2ATimeoutError extends A2AClientError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number) {
    super(message);
    this.timeoutMs = timeoutMs;
  }
}

/** What was wrong with a response the server sent. */
export type InvalidResponseReason =
  'not-json' | 'not-a2a' | 'wrong-id' | 'wrong-task' | 'truncated-stream' | 'content-type' | 'invalid-card';

/** The server answered with something that is not a valid A2A response. */
export class A2AInvalidResponseError extends A2AClientError {
  readonly reason: InvalidResponseReason;
  constructor(reason: InvalidResponseReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** No interface on the card can be used by this client (binding or version mismatch). */
export class A2ANoCompatibleInterfaceError extends A2AClientError {}

/**
 * The client has credentials for the call but refused to send them (and so the call) to the
 * interface in use: its origin is not the one the client was connected to, not in
 * `credentialOrigins`, and no verified card names it (CLI-AUTH-3). Nothing was sent.
 */
export class A2AUntrustedInterfaceError extends A2AClientError {
  /** The interface URL the card named. */
  readonly url: string;
  /** Its origin (`https://host`, `grpc://host:port`), when it has one. */
  readonly origin: string | undefined;
  constructor(message: string, url: string, origin: string | undefined) {
    super(message);
    this.url = url;
    this.origin = origin;
  }
}

/** Node's network error code of `error` or its causes, if any. */
export function networkCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+|^UND_ERR/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `waitForTask` reached its deadline; the remote task was asked to cancel. */
export class A2ADeadlineError extends A2ATimeoutError {
  /** The last state of the task seen before the deadline, if any. */
  readonly task: Task | undefined;
  constructor(message: string, timeoutMs: number, task?: Task) {
    super(message, timeoutMs);
    this.task = task;
  }
}

/** One interface a call tried, and how it failed. */
export interface InterfaceFailure {
  /** `JSONRPC`, `HTTP+JSON` or `GRPC`. */
  binding: string;
  url: string;
  error: unknown;
}

/**
 * Every interface of the card that the call could fall back to failed at the transport level
 * (CLI-CARD-5). The message names each one and its failure; `failures` keeps the details.
 */
export class A2AInterfacesUnreachableError extends A2ATransportError {
  readonly failures: readonly InterfaceFailure[];
  constructor(failures: readonly InterfaceFailure[]) {
    const last = failures[failures.length - 1]?.error;
    super(
      `no interface of the agent could be reached; tried ${failures
        .map((f) => `${f.binding} at ${f.url} (${describe(f.error)})`)
        .join('; ')}`,
      {
        cause: last,
        networkCode: last instanceof A2ATransportError ? last.networkCode : networkCode(last),
        status: last instanceof A2ATransportError ? last.status : undefined,
      },
    );
    this.failures = failures;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
