/**
 * The one table of A2A errors and their codes on every binding (spec §5.4, docs/protocol-decisions.md).
 * JSON-RPC codes and ErrorInfo reasons never change; HTTP and gRPC statuses can be
 * overridden per server (N1) with {@link overrideErrorStatus}.
 */

/** gRPC status codes by name (google.rpc.Code). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
/** A gRPC status name such as `NOT_FOUND`. */
export type GrpcStatusName = keyof typeof GrpcCode;

/** Every error a2a-kit can raise or decode, by its protocol name. */
export type A2AErrorCode =
  | 'TaskNotFound'
  | 'TaskNotCancelable'
  | 'PushNotificationNotSupported'
  | 'UnsupportedOperation'
  | 'ContentTypeNotSupported'
  | 'InvalidAgentResponse'
  | 'ExtendedAgentCardNotConfigured'
  | 'ExtensionSupportRequired'
  | 'VersionNotSupported'
  | 'TaskGenerationMismatch'
  | 'ParseError'
  | 'InvalidRequest'
  | 'MethodNotFound'
  | 'InvalidParams'
  | 'InternalError'
  | 'Unavailable'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'ResourceExhausted';

/** One row of the error table. */
export interface ErrorRow {
  /** JSON-RPC `error.code`. */
  readonly jsonRpcCode: number;
  /** gRPC status name. */
  readonly grpcStatus: GrpcStatusName;
  /** HTTP status on the REST binding (and for JSON-RPC auth errors, G3). */
  readonly httpStatus: number;
  /** `google.rpc.ErrorInfo.reason` (domain `a2a-protocol.org`); only A2A-specific errors have one. */
  readonly reason?: string;
  /** Message used when none is given. */
  readonly message: string;
}

/** The A2A error domain carried in every ErrorInfo. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

const TABLE: Record<A2AErrorCode, ErrorRow> = {
  TaskNotFound: {
    jsonRpcCode: -32001,
    grpcStatus: 'NOT_FOUND',
    httpStatus: 404,
    reason: 'TASK_NOT_FOUND',
    message: 'Task not found',
  },
  TaskNotCancelable: {
    jsonRpcCode: -32002,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'TASK_NOT_CANCELABLE',
    message: 'Task cannot be canceled',
  },
  PushNotificationNotSupported: {
    jsonRpcCode: -32003,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    message: 'Push notifications are not supported',
  },
  UnsupportedOperation: {
    jsonRpcCode: -32004,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'UNSUPPORTED_OPERATION',
    message: 'This operation is not supported',
  },
  ContentTypeNotSupported: {
    jsonRpcCode: -32005,
    grpcStatus: 'INVALID_ARGUMENT',
    httpStatus: 400,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    message: 'Incompatible content types',
  },
  InvalidAgentResponse: {
    jsonRpcCode: -32006,
    grpcStatus: 'INTERNAL',
    httpStatus: 500,
    reason: 'INVALID_AGENT_RESPONSE',
    message: 'Invalid agent response',
  },
  ExtendedAgentCardNotConfigured: {
    jsonRpcCode: -32007,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    message: 'Extended agent card is not configured',
  },
  ExtensionSupportRequired: {
    jsonRpcCode: -32008,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    message: 'A required extension was not requested',
  },
  VersionNotSupported: {
    jsonRpcCode: -32009,
    grpcStatus: 'FAILED_PRECONDITION',
    httpStatus: 400,
    reason: 'VERSION_NOT_SUPPORTED',
    message: 'Protocol version not supported',
  },
  // A2A 1.1 draft (dev-1.1, GEN-4): only raised for a call that opted in to the draft.
  TaskGenerationMismatch: {
    jsonRpcCode: -32010,
    grpcStatus: 'ABORTED',
    httpStatus: 409,
    reason: 'TASK_GENERATION_MISMATCH',
    message: 'Task generation mismatch',
  },
  ParseError: {
    jsonRpcCode: -32700,
    grpcStatus: 'INVALID_ARGUMENT',
    httpStatus: 400,
    message: 'Invalid JSON payload',
  },
  InvalidRequest: {
    jsonRpcCode: -32600,
    grpcStatus: 'INVALID_ARGUMENT',
    httpStatus: 400,
    message: 'Request payload validation error',
  },
  MethodNotFound: {
    jsonRpcCode: -32601,
    grpcStatus: 'UNIMPLEMENTED',
    httpStatus: 404,
    message: 'Method not found',
  },
  InvalidParams: {
    jsonRpcCode: -32602,
    grpcStatus: 'INVALID_ARGUMENT',
    httpStatus: 400,
    message: 'Invalid parameters',
  },
  InternalError: { jsonRpcCode: -32603, grpcStatus: 'INTERNAL', httpStatus: 500, message: 'Internal error' },
  Unavailable: {
    jsonRpcCode: -32603,
    grpcStatus: 'UNAVAILABLE',
    httpStatus: 503,
    message: 'Service temporarily unavailable',
  },
  Unauthenticated: {
    jsonRpcCode: -32000,
    grpcStatus: 'UNAUTHENTICATED',
    httpStatus: 401,
    message: 'Authentication required',
  },
  PermissionDenied: {
    jsonRpcCode: -32000,
    grpcStatus: 'PERMISSION_DENIED',
    httpStatus: 403,
    message: 'Permission denied',
  },
  // Rate limits and per-caller caps (SRV-SEC-7): like G3, JSON-RPC answers at the HTTP layer.
  ResourceExhausted: {
    jsonRpcCode: -32000,
    grpcStatus: 'RESOURCE_EXHAUSTED',
    httpStatus: 429,
    message: 'Too many requests',
  },
};

const overrides = new Map<A2AErrorCode, Partial<Pick<ErrorRow, 'httpStatus' | 'grpcStatus'>>>();

/** The table row for `code`, with any override applied. */
export function errorRow(code: A2AErrorCode): ErrorRow {
  const o = overrides.get(code);
  return o ? { ...TABLE[code], ...o } : TABLE[code];
}

/** Every error code in the table. */
export const ERROR_CODES = Object.keys(TABLE) as A2AErrorCode[];

/**
 * Changes the HTTP and/or gRPC status emitted for one error (e.g. to run a conformance kit
 * built on the v1.0.0 tag, which used 409 for TaskNotCancelable). Process-wide.
 */
export function overrideErrorStatus(
  code: A2AErrorCode,
  statuses: Partial<Pick<ErrorRow, 'httpStatus' | 'grpcStatus'>> | undefined,
): void {
  if (statuses) overrides.set(code, statuses);
  else overrides.delete(code);
}

/** The error code whose ErrorInfo reason is `reason`, if any. */
export function codeForReason(reason: string): A2AErrorCode | undefined {
  return ERROR_CODES.find((c) => TABLE[c].reason === reason);
}

/** The error code for a JSON-RPC `error.code` (the first row that uses it). */
export function codeForJsonRpc(code: number): A2AErrorCode | undefined {
  return ERROR_CODES.find((c) => TABLE[c].jsonRpcCode === code);
}

/** Best guess of the error from an HTTP status alone (used when a body says nothing better). */
export function codeForHttpStatus(status: number): A2AErrorCode {
  switch (status) {
    case 400:
      return 'InvalidParams';
    case 401:
      return 'Unauthenticated';
    case 403:
      return 'PermissionDenied';
    case 404:
      return 'TaskNotFound';
    case 405:
    case 501:
      return 'MethodNotFound';
    case 409:
      return 'TaskNotCancelable';
    case 415:
      return 'ContentTypeNotSupported';
    case 429:
      return 'ResourceExhausted';
    case 502:
    case 503:
    case 504:
      return 'Unavailable';
    default:
      return 'InternalError';
  }
}

/** Best guess of the error from a gRPC status alone. */
export function codeForGrpcStatus(status: number): A2AErrorCode {
  switch (status) {
    case GrpcCode.NOT_FOUND:
      return 'TaskNotFound';
    case GrpcCode.INVALID_ARGUMENT:
      return 'InvalidParams';
    case GrpcCode.UNIMPLEMENTED:
      return 'MethodNotFound';
    case GrpcCode.UNAUTHENTICATED:
      return 'Unauthenticated';
    case GrpcCode.PERMISSION_DENIED:
      return 'PermissionDenied';
    case GrpcCode.UNAVAILABLE:
      return 'Unavailable';
    case GrpcCode.RESOURCE_EXHAUSTED:
      return 'ResourceExhausted';
    case GrpcCode.FAILED_PRECONDITION:
      return 'UnsupportedOperation';
    default:
      return 'InternalError';
  }
}
