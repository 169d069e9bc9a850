/**
 * Schema-driven input normalization: turns the spellings ProtoJSON parsers accept (and the
 * few v0.3 leftovers we accept, N17/D5) into the one canonical shape our schemas
 * describe. Used only on the slow path, when the strict compiled check has already failed.
 * Never mutates its input: changed objects are rebuilt, untouched branches are shared.
 */
import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox';
import { parseRole, parseTaskState, Role, TaskState } from './enums.js';
import { ONEOF_MEMBERS } from './schema-kit.js';
import { isTimestamp, normalizeTimestamp } from './timestamp.js';

/** How lenient normalization is. */
export interface NormalizeMode {
  /** Client side (CLI-JSON-2): unknown enum values become `*_UNSPECIFIED`, absent REQUIRED scalars and lists take their defaults. */
  readonly lenient: boolean;
}

type Props = Record<string, TSchema>;
type JsonObject = Record<string, unknown>;

const SNAKE = /_([a-z0-9])/g;

/** `message_id` → `messageId` (ProtoJSON accepts the proto field name, SRV-JSON-1). */
export function snakeToCamel(key: string): string {
  return key.includes('_') ? key.replace(SNAKE, (_m, c: string) => c.toUpperCase()) : key;
}

/** Sets an own enumerable property, even one named `__proto__`, without touching the prototype. */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Property schemas of an object, or of every member of a oneof plus its common fields. */
function propertiesOf(schema: TSchema): Props | undefined {
  if (schema[Kind] === 'Object') return schema.properties as Props;
  const members = (schema as Record<string, unknown>)[ONEOF_MEMBERS] as string[] | undefined;
  if (schema[Kind] === 'Union' && members) {
    const variants = schema.anyOf as TSchema[];
    const first = variants[0]?.properties as Props | undefined;
    if (!first) return undefined;
    const props: Props = {};
    for (const [key, value] of Object.entries(first)) if (!members.includes(key)) props[key] = value;
    members.forEach((m, i) => {
      const member = (variants[i]?.properties as Props | undefined)?.[m];
      if (member) props[m] = member;
    });
    return props;
  }
  return undefined;
}

/** Which of our two enums a union of string literals is, if any. */
function enumKind(schema: TSchema): 'role' | 'state' | undefined {
  if (schema[Kind] !== 'Union' || !Array.isArray(schema.anyOf)) return undefined;
  const consts = (schema.anyOf as TSchema[]).map((s) => s.const as unknown);
  if (consts.includes(Role.USER)) return 'role';
  if (consts.includes(TaskState.WORKING)) return 'state';
  return undefined;
}

/**
 * Returns `value` rewritten to the canonical shape of `schema`. Anything it cannot make
 * sense of is passed through unchanged so the validator reports it with its path.
 */
export function normalizeValue(schema: TSchema, value: unknown, mode: NormalizeMode): unknown {
  const kind = schema[Kind] as string;
  switch (kind) {
    case 'Integer':
    case 'Number':
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
      return value;
    case 'Boolean':
      if (value === 'true') return true;
      if (value === 'false') return false;
      return value;
    case 'String':
      if (schema.format === 'timestamp' && typeof value === 'string' && isTimestamp(value)) {
        return normalizeTimestamp(value);
      }
      return value;
    case 'Array': {
      if (!Array.isArray(value)) return value;
      const items = schema.items as TSchema;
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const before: unknown = value[i];
        const after = normalizeValue(items, before, mode);
        if (after !== before) {
          out ??= value.slice();
          out[i] = after;
        }
      }
      return out ?? value;
    }
    case 'Record': {
      if (!isPlainObject(value)) return value;
      const pattern = Object.values(schema.patternProperties as Props)[0];
      if (!pattern || pattern[Kind] === 'Unknown') return value; // Struct: user content, kept as is
      let out: JsonObject | undefined;
      for (const key of Object.keys(value)) {
        const before = value[key];
        const after = normalizeValue(pattern, before, mode);
        if (after !== before) {
          out ??= copyOwn(value);
          setOwn(out, key, after);
        }
      }
      return out ?? value;
    }
    case 'Union': {
      const e = enumKind(schema);
      if (e) return normalizeEnum(e, value, mode);
      const props = propertiesOf(schema);
      return props ? normalizeObject(schema, props, value, mode) : value;
    }
    case 'Object':
      return normalizeObject(schema, schema.properties as Props, value, mode);
    default:
      return value;
  }
}

function normalizeEnum(e: 'role' | 'state', value: unknown, mode: NormalizeMode): unknown {
  const parsed = e === 'role' ? parseRole(value) : parseTaskState(value);
  if (parsed !== undefined) return parsed;
  if (mode.lenient) return e === 'role' ? Role.UNSPECIFIED : TaskState.UNSPECIFIED;
  return value;
}

function copyOwn(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) setOwn(out, key, value[key]);
  return out;
}

function normalizeObject(schema: TSchema, props: Props, value: unknown, mode: NormalizeMode): unknown {
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const rawKey of Object.keys(value)) {
    const v = value[rawKey];
    if (v === null || v === undefined) continue; // ProtoJSON: null means "absent"
    let key = Object.prototype.hasOwnProperty.call(props, rawKey) ? rawKey : snakeToCamel(rawKey);
    if (schema.$id === 'SendMessageConfiguration' && key === 'pushNotificationConfig') {
      key = 'taskPushNotificationConfig'; // v0.3 name (D5)
      if (value['taskPushNotificationConfig'] != null) continue;
    }
    const prop = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    if (!prop) continue; // unknown field: ignored (SRV-JSON-6)
    if (key !== rawKey && Object.prototype.hasOwnProperty.call(out, key)) continue; // camelCase wins
    setOwn(out, key, normalizeValue(prop, v, mode));
  }
  if (schema.$id === 'AuthenticationInfo' && out['scheme'] === undefined) {
    // v0.3 `schemes: [..]` → v1.0 `scheme` (D5)
    const schemes = value['schemes'];
    if (Array.isArray(schemes) && typeof schemes[0] === 'string') out['scheme'] = schemes[0];
  }
  if (mode.lenient && schema[Kind] === 'Object') fillDefaults(schema, props, out);
  return out;
}

/** Absent REQUIRED lists, maps and scalars take their proto3 default (N5, client side). */
function fillDefaults(schema: TSchema, props: Props, out: JsonObject): void {
  const required = (schema.required as string[] | undefined) ?? [];
  for (const key of required) {
    if (out[key] !== undefined) continue;
    const prop = props[key];
    if (!prop || prop[OptionalKind]) continue;
    switch (prop[Kind]) {
      case 'Array':
        out[key] = [];
        break;
      case 'Record':
        out[key] = {};
        break;
      case 'Integer':
        out[key] = 0;
        break;
      case 'Boolean':
        out[key] = false;
        break;
      case 'String':
        if (!prop.minLength) out[key] = '';
        break;
      case 'Object':
        if (!(prop.required as string[] | undefined)?.length) out[key] = {};
        break;
      case 'Union': {
        const e = enumKind(prop);
        if (e) out[key] = e === 'role' ? Role.UNSPECIFIED : TaskState.UNSPECIFIED;
        break;
      }
      default:
        break;
    }
  }
}
