import type { SchemaViolation } from '../model/validate.js';
import { A2A_ERROR_DOMAIN, errorRow, type A2AErrorCode } from './table.js';

/** A `google.rpc.ErrorInfo` detail as carried in JSON (`@type` included). */
export interface ErrorInfoDetail {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** A `google.rpc.BadRequest` detail as carried in JSON. */
export interface BadRequestDetail {
  '@type': 'type.googleapis.com/google.rpc.BadRequest';
  fieldViolations: { field: string; description: string }[];
}

/** Any detail object; each carries `@type` (SRV-ERR-2). */
export type ErrorDetail =
  ErrorInfoDetail | BadRequestDetail | ({ '@type': string } & Record<string, unknown>);

/** The cross-copy brand of A2AError instances (a registered symbol: every copy gets the same one). */
const BRAND = Symbol.for('a2a-kit/A2AError');

/** Options when raising an {@link A2AError}. */
export interface A2AErrorOptions {
  /** Free context for ErrorInfo metadata (`taskId`, `supportedVersions`, ...). */
  metadata?: Record<string, string>;
  /** Which fields were wrong (becomes a google.rpc.BadRequest). */
  violations?: readonly SchemaViolation[];
  /** The binding's raw error as received (client side), kept for diagnosis. */
  raw?: unknown;
  /** The status the peer actually used (client side), when it differs from the table. */
  receivedStatus?: number;
  cause?: unknown;
}

/**
 * Base class of every protocol error. `code` names the table row; bindings turn it into
 * their wire shape and clients rebuild it from any binding.
 */
export class A2AError extends Error {
  /**
   * `instanceof` that also recognises errors made by another copy of a2a-kit in the process
   * (two installed versions, a bundled and an unbundled one): such a value carries the
   * cross-copy brand, and is an instance of a per-code class (`TaskNotFoundError`...) when its
   * `code` is that class's code. Subclasses of your own keep the plain prototype check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null || (value as { [BRAND]?: unknown })[BRAND] !== true) {
      return false;
    }
    if (this === A2AError) return true;
    const code = CODE_OF_CLASS.get(this);
    return code !== undefined && (value as A2AError).code === code;
  }

  readonly code: A2AErrorCode;
  readonly metadata: Readonly<Record<string, string>>;
  readonly violations: readonly SchemaViolation[];
  readonly raw: unknown;
  readonly receivedStatus: number | undefined;

  constructor(code: A2AErrorCode, message?: string, options: A2AErrorOptions = {}) {
    super(
      message ?? errorRow(code).message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = `${code}Error`;
    this.code = code;
    this.metadata = options.metadata ?? {};
    this.violations = options.violations ?? [];
    this.raw = options.raw;
    this.receivedStatus = options.receivedStatus;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** The ErrorInfo reason, for A2A-specific errors. */
  get reason(): string | undefined {
    return errorRow(this.code).reason;
  }

  /** The details array every binding carries: ErrorInfo (A2A errors) and BadRequest (violations). */
  details(): ErrorDetail[] {
    const out: ErrorDetail[] = [];
    const reason = this.reason;
    if (reason) {
      const info: ErrorInfoDetail = {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: A2A_ERROR_DOMAIN,
      };
      if (Object.keys(this.metadata).length > 0) info.metadata = { ...this.metadata };
      out.push(info);
    }
    if (this.violations.length > 0) {
      out.push({
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: this.violations.map((v) => ({ field: v.path, description: v.description })),
      });
    }
    return out;
  }
}

/** Builds the typed subclass for `code` (used by decoders). */
export function createError(code: A2AErrorCode, message?: string, options?: A2AErrorOptions): A2AError {
  const Ctor = ERROR_CLASSES[code];
  return new Ctor(message, options);
}

type Ctor = new (message?: string, options?: A2AErrorOptions) => A2AError;

function errorClass(code: A2AErrorCode): Ctor {
  return class extends A2AError {
    constructor(message?: string, options?: A2AErrorOptions) {
      super(code, message, options);
    }
  };
}

/** The task does not exist or is not accessible to the caller (-32001). */
export class TaskNotFoundError extends errorClass('TaskNotFound') {}
/** The task is in a state where it cannot be canceled (-32002). */
export class TaskNotCancelableError extends errorClass('TaskNotCancelable') {}
/** The agent does not offer push notifications (-32003). */
export class PushNotificationNotSupportedError extends errorClass('PushNotificationNotSupported') {}
/** The operation is not supported, or not for this task's state (-32004). */
export class UnsupportedOperationError extends errorClass('UnsupportedOperation') {}
/** A part's media type is not supported (-32005). */
export class ContentTypeNotSupportedError extends errorClass('ContentTypeNotSupported') {}
/** The agent produced something the protocol does not allow (-32006). */
export class InvalidAgentResponseError extends errorClass('InvalidAgentResponse') {}
/** The agent declares an extended card but has none configured (-32007). */
export class ExtendedAgentCardNotConfiguredError extends errorClass('ExtendedAgentCardNotConfigured') {}
/** A required extension was not requested by the client (-32008). */
export class ExtensionSupportRequiredError extends errorClass('ExtensionSupportRequired') {}
/** The requested A2A-Version is not served (-32009). */
export class VersionNotSupportedError extends errorClass('VersionNotSupported') {}
/**
 * A2A 1.1 draft: `ifGenerationMatch` named another generation than the task's (-32010, 409,
 * ABORTED); metadata `taskId`, `expectedGeneration`, `currentGeneration`.
 */
export class TaskGenerationMismatchError extends errorClass('TaskGenerationMismatch') {}
/** The body is not valid JSON (-32700). */
export class ParseError extends errorClass('ParseError') {}
/** The body is not a valid request object (-32600). */
export class InvalidRequestError extends errorClass('InvalidRequest') {}
/** No such method or route (-32601). */
export class MethodNotFoundError extends errorClass('MethodNotFound') {}
/** The parameters are invalid (-32602). */
export class InvalidParamsError extends errorClass('InvalidParams') {}
/** An unexpected failure inside the server (-32603). */
export class InternalError extends errorClass('InternalError') {}
/** The server is temporarily unable to serve (503 / UNAVAILABLE). */
export class UnavailableError extends errorClass('Unavailable') {}
/** Missing or invalid credentials (401 / UNAUTHENTICATED). */
export class UnauthenticatedError extends errorClass('Unauthenticated') {}
/** Authenticated but not allowed (403 / PERMISSION_DENIED). */
export class PermissionDeniedError extends errorClass('PermissionDenied') {}
/** A rate limit or per-caller cap was hit (429 / RESOURCE_EXHAUSTED). */
export class ResourceExhaustedError extends errorClass('ResourceExhausted') {
  /** Whole seconds after which a retry may succeed; bindings send it as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  constructor(message?: string, options: A2AErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds =
      options.retryAfterSeconds === undefined ? undefined : Math.max(0, Math.ceil(options.retryAfterSeconds));
  }
}

const ERROR_CLASSES: Record<A2AErrorCode, Ctor> = {
  TaskNotFound: TaskNotFoundError,
  TaskNotCancelable: TaskNotCancelableError,
  PushNotificationNotSupported: PushNotificationNotSupportedError,
  UnsupportedOperation: UnsupportedOperationError,
  ContentTypeNotSupported: ContentTypeNotSupportedError,
  InvalidAgentResponse: InvalidAgentResponseError,
  ExtendedAgentCardNotConfigured: ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequired: ExtensionSupportRequiredError,
  VersionNotSupported: VersionNotSupportedError,
  TaskGenerationMismatch: TaskGenerationMismatchError,
  ParseError: ParseError,
  InvalidRequest: InvalidRequestError,
  MethodNotFound: MethodNotFoundError,
  InvalidParams: InvalidParamsError,
  InternalError: InternalError,
  Unavailable: UnavailableError,
  Unauthenticated: UnauthenticatedError,
  PermissionDenied: PermissionDeniedError,
  ResourceExhausted: ResourceExhaustedError,
};

/** The code each per-code class stands for, for the cross-copy `instanceof`. */
const CODE_OF_CLASS: ReadonlyMap<unknown, A2AErrorCode> = new Map(
  Object.entries(ERROR_CLASSES).map(([code, ctor]) => [ctor, code as A2AErrorCode]),
);

/** Wraps anything thrown into an A2AError; unknown failures become InternalError without leaking detail. */
export function toA2AError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  return new InternalError(undefined, { cause: error });
}
