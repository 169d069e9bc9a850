/**
 * Checks what an agent emits before anything is stored or published. Client input is JSON by
 * construction (a binding parsed it) and is validated with the model's compiled schemas; agent
 * output is any JavaScript value, so it gets the same schemas (strictly: no unknown fields) and,
 * for the free-form values (`metadata`, `data` parts), a check that they are plain JSON. A value
 * that would not survive JSON (a BigInt, a cycle, a function, NaN, `undefined` in an array, a
 * Date or Map) would otherwise be stored and break every later read of the task.
 */
import { InvalidAgentResponseError } from '../errors/a2a-error.js';
import { Artifact as ArtifactSchema, Message as MessageSchema } from '../model/schema.js';
import type { Artifact, Message } from '../model/schema.js';
import { formatViolations, type Validator } from '../model/validate.js';
import { compileStrict, DEFAULT_VALIDATION_LIMITS } from '../model/validators.js';

const messageValidator: Validator<Message> = compileStrict(MessageSchema);
const artifactValidator: Validator<Artifact> = compileStrict(ArtifactSchema);

/** Deepest nesting accepted in a free-form value, as for client input (also what stops a cycle). */
const MAX_DEPTH = DEFAULT_VALIDATION_LIMITS.maxDepth;
/** Most values walked in one free-form value, so a huge shared-reference graph cannot hold the loop. */
const MAX_VALUES = 4_000_000;

/** A Message built from agent input; throws InvalidAgentResponseError naming the problem. */
export function checkAgentMessage(message: Message, what: string): Message {
  checkSchema(messageValidator, message, what);
  checkJson(message.metadata, `${what}.metadata`);
  checkParts(message.parts, what);
  return message;
}

/** An Artifact built from agent input; throws InvalidAgentResponseError naming the problem. */
export function checkAgentArtifact(artifact: Artifact): Artifact {
  checkSchema(artifactValidator, artifact, 'artifact');
  checkJson(artifact.metadata, 'artifact.metadata');
  checkParts(artifact.parts, 'artifact');
  return artifact;
}

/** Event metadata from the agent (a Struct): a plain JSON object or absent. */
export function checkAgentMetadata(
  metadata: Record<string, unknown> | undefined,
  what: string,
): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    fail(what, 'must be a JSON object');
  }
  checkJson(metadata, what);
  return metadata;
}

function checkSchema<T>(validator: Validator<T>, value: T, what: string): void {
  const checked = validator.check(value);
  if (!checked.ok) {
    throw new InvalidAgentResponseError(
      `the agent emitted an invalid ${what}: ${formatViolations(checked.violations)}`,
      { violations: checked.violations },
    );
  }
}

function checkParts(parts: readonly { metadata?: unknown; data?: unknown }[], what: string): void {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    checkJson(part.metadata, `${what}.parts[${i}].metadata`);
    checkJson(part.data, `${what}.parts[${i}].data`);
  }
}

function checkJson(value: unknown, what: string): void {
  if (value === undefined) return;
  const budget = { left: MAX_VALUES };
  const problem = jsonProblem(value, 0, budget);
  if (problem) fail(`${what}${problem.path}`, problem.description);
}

function fail(path: string, description: string): never {
  throw new InvalidAgentResponseError(`the agent emitted an invalid value at ${path}: ${description}`, {
    violations: [{ path, description }],
  });
}

interface Problem {
  path: string;
  description: string;
}

/** The first place where `v` is not plain JSON, or undefined. `undefined` object members count as absent. */
function jsonProblem(v: unknown, depth: number, budget: { left: number }): Problem | undefined {
  if (--budget.left < 0) return { path: '', description: `more than ${MAX_VALUES} values` };
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? undefined : { path: '', description: `${v} is not a JSON number` };
    case 'bigint':
      return { path: '', description: 'a BigInt is not JSON (send it as a string or a number)' };
    case 'undefined':
      return { path: '', description: 'undefined is not JSON (use null)' };
    case 'function':
      return { path: '', description: 'a function is not JSON' };
    case 'symbol':
      return { path: '', description: 'a symbol is not JSON' };
  }
  if (v === null) return undefined;
  if (depth >= MAX_DEPTH) {
    return { path: '', description: `nested deeper than ${MAX_DEPTH} levels (or it contains a cycle)` };
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return { path: `[${i}]`, description: 'an array hole is not JSON' };
      const inner = jsonProblem(v[i], depth + 1, budget);
      if (inner) return { path: `[${i}]${inner.path}`, description: inner.description };
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    return {
      path: '',
      description: `${typeof name === 'string' && name ? `a ${name}` : 'an object with a prototype'} is not a plain JSON object`,
    };
  }
  const record = v as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === undefined) continue;
    const inner = jsonProblem(value, depth + 1, budget);
    if (inner) return { path: `.${key}${inner.path}`, description: inner.description };
  }
  return undefined;
}
