/**
 * The ProtoJSON oracle: every JSON object we put on the wire must parse strictly against
 * the proto (protobuf-es `fromJson`, unknown fields rejected), survive a round trip, and
 * follow the rules a proto parser does not check (N5, SRV-JSON-1..9):
 * - no `null` as a field value (inside Struct/Value content, user data may hold null);
 * - field names in their camelCase JSON spelling;
 * - enums as names, int32 as numbers, bytes as standard padded base64;
 * - timestamps as `YYYY-MM-DDTHH:mm:ss.sssZ`;
 * - every REQUIRED field (google.api.field_behavior) present, even at its default.
 */
import { AssertionError } from 'node:assert/strict';
import {
  createRegistry,
  equals,
  fromJson,
  getOption,
  ScalarType,
  toJson,
  type DescField,
  type DescMessage,
  type JsonValue,
} from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import { file_lf_a2a_v1_a2a } from '../../src/bindings/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { FieldBehavior, field_behavior } from '../../src/bindings/grpc/gen/google/api/field_behavior_pb.js';

const registry = createRegistry(file_lf_a2a_v1_a2a);
const A2A_PACKAGE = 'lf.a2a.v1.';

/** The descriptor of `messageName` ('Task', 'lf.a2a.v1.Task', 'google.protobuf.Empty' or 'Empty'). */
export function messageDescriptor(messageName: string): DescMessage {
  if (messageName === 'google.protobuf.Empty' || messageName === 'Empty') return EmptySchema;
  const desc =
    registry.getMessage(messageName.startsWith(A2A_PACKAGE) ? messageName : A2A_PACKAGE + messageName) ??
    registry.getMessage(messageName);
  if (!desc) throw new Error(`oracle: no message named ${messageName} in a2a.proto`);
  return desc;
}

/** Every message declared in a2a.proto, by short name. */
export function protoMessageNames(): string[] {
  return file_lf_a2a_v1_a2a.messages.map((m) => m.name);
}

/** Options of {@link protoJsonProblems}. */
export interface OracleOptions {
  /** Check that REQUIRED fields are present. @default true */
  required?: boolean;
}

/** Everything wrong with `json` as the ProtoJSON of `messageName`; empty when it is fine. */
export function protoJsonProblems(messageName: string, json: unknown, options: OracleOptions = {}): string[] {
  const desc = messageDescriptor(messageName);
  const problems: string[] = [];
  let parsed;
  try {
    parsed = fromJson(desc, json as JsonValue, { ignoreUnknownFields: false });
  } catch (err) {
    problems.push(`fromJson(${desc.typeName}) failed: ${(err as Error).message}`);
  }
  if (parsed) {
    try {
      const again = fromJson(desc, toJson(desc, parsed), { ignoreUnknownFields: false });
      if (!equals(desc, parsed, again)) problems.push('toJson/fromJson round trip changed the message');
    } catch (err) {
      problems.push(`round trip failed: ${(err as Error).message}`);
    }
  }
  walkMessage(desc, json, '', options.required ?? true, problems);
  return problems;
}

/**
 * Asserts that `json` is valid ProtoJSON of `messageName` by our rules (see the file comment).
 * @throws AssertionError listing every problem.
 */
export function assertProtoJson(messageName: string, json: unknown, options?: OracleOptions): void {
  const problems = protoJsonProblems(messageName, json, options);
  if (problems.length > 0) {
    throw new AssertionError({
      message: `not valid ProtoJSON ${messageName}:\n  - ${problems.join('\n  - ')}\n${preview(json)}`,
      actual: json,
      expected: messageName,
      operator: 'assertProtoJson',
    });
  }
}

/** Asserts one streamed event (SSE `data` on REST, `result` on JSON-RPC, or a webhook body). */
export function assertStreamResponse(json: unknown): void {
  assertProtoJson('StreamResponse', json);
}

function preview(json: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(json) ?? String(json);
  } catch {
    text = String(json);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
}

// ---- our rules ---------------------------------------------------------------------------

const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Well-known types whose JSON is free-form user content. */
const FREE_FORM = new Set(['google.protobuf.Struct', 'google.protobuf.Value', 'google.protobuf.ListValue']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isRequired(field: DescField): boolean {
  return getOption(field, field_behavior).includes(FieldBehavior.REQUIRED);
}

function walkMessage(desc: DescMessage, json: unknown, path: string, required: boolean, out: string[]): void {
  if (FREE_FORM.has(desc.typeName)) return;
  const at = path || '(root)';
  if (desc.typeName === 'google.protobuf.Timestamp') {
    if (typeof json !== 'string' || !CANONICAL_TIMESTAMP.test(json)) {
      out.push(`${at}: timestamp ${JSON.stringify(json)} is not YYYY-MM-DDTHH:mm:ss.sssZ`);
    }
    return;
  }
  if (!isObject(json)) {
    if (json === null) out.push(`${at}: null`);
    return; // fromJson reports the type error
  }
  const byJsonName = new Map(desc.fields.map((f) => [f.jsonName, f]));
  const byProtoName = new Map(desc.fields.map((f) => [f.name, f]));
  for (const key of Object.keys(json)) {
    const value = json[key];
    const here = path ? `${path}.${key}` : key;
    let field = byJsonName.get(key);
    if (!field) {
      field = byProtoName.get(key);
      if (field) out.push(`${here}: write the camelCase name ${field.jsonName}`);
      continue;
    }
    if (value === null) {
      out.push(`${here}: null (omit the field instead)`);
      continue;
    }
    walkField(field, value, here, required, out);
  }
  if (required) {
    for (const field of desc.fields) {
      if (isRequired(field) && json[field.jsonName] === undefined) {
        out.push(`${path ? `${path}.` : ''}${field.jsonName}: REQUIRED field missing`);
      }
    }
  }
}

function walkField(field: DescField, value: unknown, path: string, required: boolean, out: string[]): void {
  switch (field.fieldKind) {
    case 'scalar':
      checkScalar(field.scalar, value, path, out);
      return;
    case 'enum':
      checkEnum(value, path, out);
      return;
    case 'message':
      walkMessage(field.message, value, path, required, out);
      return;
    case 'list':
      if (!Array.isArray(value)) return;
      value.forEach((item, i) => {
        const here = `${path}[${i}]`;
        if (item === null) out.push(`${here}: null`);
        else if (field.listKind === 'scalar') checkScalar(field.scalar, item, here, out);
        else if (field.listKind === 'enum') checkEnum(item, here, out);
        else walkMessage(field.message, item, here, required, out);
      });
      return;
    case 'map':
      if (!isObject(value)) return;
      for (const key of Object.keys(value)) {
        const item = value[key];
        const here = `${path}.${key}`;
        if (item === null) out.push(`${here}: null`);
        else if (field.mapKind === 'scalar') checkScalar(field.scalar, item, here, out);
        else if (field.mapKind === 'enum') checkEnum(item, here, out);
        else walkMessage(field.message, item, here, required, out);
      }
      return;
  }
}

function checkEnum(value: unknown, path: string, out: string[]): void {
  if (typeof value !== 'string') out.push(`${path}: enum written as ${JSON.stringify(value)}, not its name`);
}

function checkScalar(type: ScalarType, value: unknown, path: string, out: string[]): void {
  switch (type) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      if (typeof value !== 'number') out.push(`${path}: 32-bit integer written as ${typeof value}`);
      return;
    case ScalarType.BYTES:
      if (typeof value === 'string' && (!STANDARD_BASE64.test(value) || value.length % 4 !== 0)) {
        out.push(`${path}: bytes not written as standard padded base64`);
      }
      return;
    default:
      return;
  }
}
