/**
 * A2A errors on gRPC: the status number of the error table, and the rich details (ErrorInfo,
 * BadRequest) in a binary `google.rpc.Status` carried by the `grpc-status-details-bin` trailer.
 */
import { fromBinary, fromJson, toBinary } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, type Any } from '@bufbuild/protobuf/wkt';
import { Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import {
  A2A_ERROR_DOMAIN,
  GrpcCode,
  codeForGrpcStatus,
  codeForReason,
  errorRow,
  type A2AErrorCode,
} from '../../errors/table.js';
import { createError, toA2AError, type A2AError } from '../../errors/a2a-error.js';
import type { SchemaViolation } from '../../model/validate.js';
import {
  BadRequestSchema,
  ErrorInfoSchema,
  type BadRequest_FieldViolation,
} from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';
import { asBuffer } from './encode.js';

/** The trailer carrying a binary `google.rpc.Status` (standard gRPC rich errors). */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** The gRPC status number for an A2A error (spec §5.4, overridable per server). */
export function grpcStatusOf(error: A2AError): number {
  return GrpcCode[errorRow(error.code).grpcStatus];
}

/** The `google.rpc.Status` bytes for an error: code, message, ErrorInfo and BadRequest details. */
export function encodeStatusDetails(error: A2AError, code = grpcStatusOf(error)): Uint8Array {
  const details: Any[] = [];
  const reason = error.reason;
  if (reason) {
    details.push(
      anyPack(
        ErrorInfoSchema,
        fromJson(ErrorInfoSchema, { reason, domain: A2A_ERROR_DOMAIN, metadata: { ...error.metadata } }),
      ),
    );
  }
  if (error.violations.length > 0) {
    details.push(
      anyPack(
        BadRequestSchema,
        fromJson(BadRequestSchema, {
          fieldViolations: error.violations.map((v) => ({ field: v.path, description: v.description })),
        }),
      ),
    );
  }
  const status = fromJson(StatusSchema, { code, message: error.message });
  status.details = details;
  return toBinary(StatusSchema, status);
}

/**
 * What a server answers for anything thrown: an A2AError keeps its table status and gets rich
 * details; anything else becomes INTERNAL without leaking its message.
 */
export function toGrpcStatus(thrown: unknown): Partial<StatusObject> & { code: number; details: string } {
  const error = toA2AError(thrown);
  const code = grpcStatusOf(error);
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, asBuffer(encodeStatusDetails(error, code)));
  return { code, details: error.message, metadata };
}

/** Decoded rich details of a gRPC error. */
interface RichDetails {
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
  violations: SchemaViolation[];
  message?: string;
}

function readRichDetails(metadata: Metadata | undefined): RichDetails {
  const out: RichDetails = { violations: [] };
  const raw = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (!raw || typeof raw === 'string') return out;
  try {
    const status = fromBinary(StatusSchema, raw);
    if (status.message) out.message = status.message;
    for (const any of status.details) {
      const info = anyUnpack(any, ErrorInfoSchema);
      if (info) {
        out.reason = info.reason;
        out.domain = info.domain;
        out.metadata = { ...info.metadata };
        continue;
      }
      const bad = anyUnpack(any, BadRequestSchema);
      if (bad) {
        out.violations.push(
          ...bad.fieldViolations.map((v: BadRequest_FieldViolation) => ({
            path: v.field,
            description: v.description,
          })),
        );
      }
    }
  } catch {
    // Undecodable details: classify by status alone.
  }
  return out;
}

/** grpc-js's details for a call whose stream ended without a gRPC status. */
const NO_STATUS = /^Received RST_STREAM with code \d+ \(Call ended without gRPC status\)$/;

/** Rebuilds a typed A2AError from a grpc-js error: ErrorInfo reason first, then the status code. */
export function fromGrpcError(err: Partial<ServiceError> & { code?: number }): A2AError {
  const status = typeof err.code === 'number' ? err.code : GrpcCode.UNKNOWN;
  const rich = readRichDetails(err.metadata);
  let code: A2AErrorCode | undefined;
  if (rich.reason && (rich.domain === undefined || rich.domain === A2A_ERROR_DOMAIN)) {
    code = codeForReason(rich.reason);
  }
  // grpc-js's own INTERNAL for a stream that closed without any status (the server or a proxy
  // went away mid-call, as at a shutdown): a transport cut, so retryable, not a server error.
  if (code === undefined && status === GrpcCode.INTERNAL && NO_STATUS.test(err.details ?? '')) {
    code = 'Unavailable';
  }
  code ??= status === GrpcCode.INVALID_ARGUMENT ? 'InvalidParams' : codeForGrpcStatus(status);
  const message = rich.message ?? err.details ?? err.message;
  return createError(code, message || undefined, {
    metadata: rich.metadata ?? {},
    violations: rich.violations,
    raw: err,
    receivedStatus: status,
  });
}

/** Shape check used by the client: grpc-js rejects with objects carrying a numeric `code`. */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'number';
}
