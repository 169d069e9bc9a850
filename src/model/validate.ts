/**
 * Compiled validators for the model schemas. An invalid value yields
 * {@link SchemaViolation}s that name the JSON path (`message.parts[2]`) and what is wrong.
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Errors, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { isTimestamp } from './timestamp.js';
import { oneofMembers } from './schema-kit.js';

if (!FormatRegistry.Has('timestamp')) FormatRegistry.Set('timestamp', isTimestamp);
if (!FormatRegistry.Has('base64')) FormatRegistry.Set('base64', isBase64);

/**
 * True for standard or URL-safe base64, padded or not (ProtoJSON `bytes`). A plain loop:
 * a regular expression with a repeated group overflows the stack on multi-megabyte input.
 */
export function isBase64(value: string): boolean {
  let end = value.length;
  let pad = 0;
  while (end > 0 && value.charCodeAt(end - 1) === 61 /* = */ && pad < 2) {
    end--;
    pad++;
  }
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    const ok =
      (c >= 65 && c <= 90) || // A-Z
      (c >= 97 && c <= 122) || // a-z
      (c >= 48 && c <= 57) || // 0-9
      c === 43 || // +
      c === 47 || // /
      c === 45 || // -
      c === 95; // _
    if (!ok) return false;
  }
  if (end % 4 === 1) return false;
  return pad === 0 || (end + pad) % 4 === 0;
}

/** One reason a value does not match its schema. */
export interface SchemaViolation {
  /** Path in dotted/bracket form from the validated root, e.g. `message.parts[2]`; `""` for the root. */
  readonly path: string;
  /** What is wrong there. */
  readonly description: string;
}

/** The result of {@link Validator.check}: the typed value, or the violations. */
export type Checked<T> = { ok: true; value: T } | { ok: false; violations: SchemaViolation[] };

/** A compiled check for one schema. */
export interface Validator<T> {
  /** Fast path: true when `value` is valid. */
  is(value: unknown): value is T;
  /** Checks `value`; on failure lists up to `max` violations with paths. */
  check(value: unknown, max?: number): Checked<T>;
}

/** The check of one schema: compiled, or interpreted where code generation is refused. */
type SchemaCheck<S extends TSchema> = Pick<TypeCheck<S>, 'Check'>;

/** False once the runtime refused `new Function` (workerd, CSP pages): checks are interpreted. */
let codeGeneration = true;

function checkOf<S extends TSchema>(schema: S): SchemaCheck<S> {
  if (codeGeneration) {
    try {
      return TypeCompiler.Compile(schema);
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
      codeGeneration = false;
    }
  }
  return { Check: (value: unknown): value is Static<S> => Value.Check(schema, value) };
}

/** Compiles `schema` once; reuse the returned validator. */
export function compile<S extends TSchema>(schema: S): Validator<Static<S>> {
  let compiled: SchemaCheck<S> | undefined;
  const get = (): SchemaCheck<S> => (compiled ??= checkOf(schema));
  return {
    is: (value: unknown): value is Static<S> => get().Check(value),
    check(value: unknown, max = 8): Checked<Static<S>> {
      if (get().Check(value)) return { ok: true, value };
      return { ok: false, violations: describe(schema, value, max) };
    },
  };
}

/** Lists the violations of `value` against `schema` (slow path; only for invalid input). */
export function describe(schema: TSchema, value: unknown, max = 8, prefix = ''): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  // The interpreted iterator: compiling here would cost more than the whole check (slow path only).
  for (const error of Errors(schema, value)) {
    collect(error, prefix, out);
    if (out.length >= max) break;
  }
  return dedupe(out).slice(0, max);
}

function collect(error: ValueError, prefix: string, out: SchemaViolation[]): void {
  const path = joinPath(prefix, error.path);
  const members = oneofMembers(error.schema);
  if (error.type === ValueErrorType.Union && members) {
    const v = error.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      out.push({ path, description: 'expected an object' });
      return;
    }
    const present = members.filter((m) => (v as Record<string, unknown>)[m] !== undefined);
    if (present.length !== 1) {
      out.push({ path, description: `exactly one of ${members.join(', ')}` });
      return;
    }
    // Exactly one member is present: report what is wrong inside that variant.
    const variants = (error.schema as unknown as { anyOf: TSchema[] }).anyOf;
    const variant = variants[members.indexOf(present[0] as string)] as TSchema;
    out.push(...describe(variant, v, 8, path));
    return;
  }
  if (error.type === ValueErrorType.Never) {
    // An absent-only member of a oneof variant is present; the union case above covers it.
    out.push({ path, description: 'must not be present' });
    return;
  }
  out.push({ path, description: explain(error) });
}

function explain(error: ValueError): string {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required';
    case ValueErrorType.StringFormat:
      return error.schema.format === 'timestamp'
        ? 'expected an RFC 3339 timestamp with a zone, such as 2026-01-01T00:00:00.000Z'
        : `expected ${String(error.schema.format)}`;
    case ValueErrorType.StringMinLength:
      return error.schema.minLength === 1 ? 'must not be empty' : `shorter than ${error.schema.minLength}`;
    case ValueErrorType.StringMaxLength:
      return `longer than ${error.schema.maxLength} characters`;
    case ValueErrorType.ArrayMinItems:
      return `needs at least ${error.schema.minItems} item(s)`;
    case ValueErrorType.Union:
      if (Array.isArray(error.schema.anyOf) && error.schema.anyOf.every((s: TSchema) => 'const' in s)) {
        return `expected one of ${error.schema.anyOf.map((s: TSchema) => String(s.const)).join(', ')}`;
      }
      return error.message.toLowerCase();
    default:
      return error.message.charAt(0).toLowerCase() + error.message.slice(1);
  }
}

/** `/message/parts/2` → `message.parts[2]`, under `prefix`. */
function joinPath(prefix: string, pointer: string): string {
  let out = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

function dedupe(list: SchemaViolation[]): SchemaViolation[] {
  const seen = new Set<string>();
  const missing = new Set(list.filter((v) => v.description === 'required').map((v) => v.path));
  return list.filter((v) => {
    if (missing.has(v.path) && v.description !== 'required') return false;
    const key = `${v.path}\u0000${v.description}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Formats violations as one line: `message.parts[2]: exactly one of text, raw, url, data; ...`. */
export function formatViolations(violations: readonly SchemaViolation[]): string {
  return violations.map((v) => (v.path ? `${v.path}: ${v.description}` : v.description)).join('; ');
}
