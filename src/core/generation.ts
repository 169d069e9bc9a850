/**
 * A2A 1.1 draft support (dev-1.1, PR 1810): the task `generation`, long-polling GetTask,
 * `ifGenerationMatch` and exact stream resumption. The generation IS the stored version of the
 * task (GEN-2), so it is the same on every replica and after a restart. Opt-in twice (GEN-1):
 * the operator turns the feature on, and each call asks for it (`A2A-Version: 1.1` or the
 * generation extension in `A2A-Extensions`); any other call is served exactly as v1.0.
 */
import type { StreamResponse, Task } from '../model/schema.js';
import type { ServerCallContext } from './context.js';
import type { StoredTask } from './stores/task-store.js';
import { viewTask } from './task-view.js';

import { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION } from '../model/draft.js';

export { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION };

/** Default bound of a long-polling GetTask (GEN-3). */
export const DEFAULT_LONG_POLL_MAX_MS = 30_000;
/** Default number of long-polling GetTask calls one principal may hold at once (GEN-3). */
export const DEFAULT_LONG_POLL_WAITERS_PER_PRINCIPAL = 32;
/** Default number of events kept per task for stream resumption (GEN-5). */
export const DEFAULT_EVENT_LOG_PER_TASK = 1000;

/** Options of the A2A 1.1 draft support (`generation` on the server and handler options). */
export interface GenerationOptions {
  /**
   * Longest a GetTask with `currentGeneration` is held before it returns the current task.
   * @default 30000
   */
  longPollMaxMs?: number;
  /**
   * Most long-polling GetTask calls one principal (in one tenant) may hold at once on this
   * process; past it a call returns the current task at once (the draft allows an early return).
   * @default 32
   */
  maxLongPollsPerPrincipal?: number;
  /**
   * Events kept per task for exact stream resumption (`Last-Event-ID`), written in the same
   * write as the task change; `0` keeps none (resumption then starts with a Task snapshot).
   * @default 1000
   */
  eventLogPerTask?: number;
  /**
   * List the interfaces a second time with `protocolVersion: "1.1"` on the card, so a 1.1
   * client finds them; the extension is declared on the card whatever this says.
   * @default false
   */
  advertiseDraftVersion?: boolean;
}

/** {@link GenerationOptions} with every default applied. */
export interface GenerationSettings {
  readonly longPollMaxMs: number;
  readonly maxLongPollsPerPrincipal: number;
  readonly eventLogPerTask: number;
  readonly advertiseDraftVersion: boolean;
}

/** Resolves the `generation` option: undefined when the feature is off. */
export function generationSettings(
  option: GenerationOptions | boolean | undefined,
): GenerationSettings | undefined {
  if (option === undefined || option === false) return undefined;
  const o = option === true ? {} : option;
  return {
    longPollMaxMs: count(o.longPollMaxMs, DEFAULT_LONG_POLL_MAX_MS, 'longPollMaxMs', 0),
    maxLongPollsPerPrincipal: count(
      o.maxLongPollsPerPrincipal,
      DEFAULT_LONG_POLL_WAITERS_PER_PRINCIPAL,
      'maxLongPollsPerPrincipal',
      0,
    ),
    eventLogPerTask: count(o.eventLogPerTask, DEFAULT_EVENT_LOG_PER_TASK, 'eventLogPerTask', 0),
    advertiseDraftVersion: o.advertiseDraftVersion === true,
  };
}

function count(value: number | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`generation.${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * True when call `ctx` gets the draft's fields and semantics: the feature is on and the call
 * asked for it. A call that asked through the extension gets it echoed (activated).
 */
export function generationOn(settings: GenerationSettings | undefined, ctx: ServerCallContext): boolean {
  if (!settings) return false;
  if (ctx.protocolVersion === DRAFT_PROTOCOL_VERSION) return true;
  if (ctx.activatedExtensions.has(GENERATION_EXTENSION)) return true;
  if (!ctx.requestedExtensions.includes(GENERATION_EXTENSION)) return false;
  ctx.activatedExtensions.add(GENERATION_EXTENSION);
  return true;
}

/** ProtoJSON of an int64 generation. */
export function generationString(version: number): string {
  return String(version);
}

/**
 * A request's int64 generation field as a number, or undefined when absent. Anything not a
 * non-negative safe integer is refused by `invalid` (the caller's InvalidParams).
 */
export function readGeneration(
  value: string | number | undefined,
  invalid: (why: string) => Error,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isSafeInteger(n) || n < 0) throw invalid('must be a generation: an integer >= 0');
  return n;
}

/** `task` (a fresh view) with its generation set. */
export function stampTask(task: Task, version: number): Task {
  task.generation = generationString(version);
  return task;
}

/**
 * The streamed form of an event with its generation: a copy (the event object is shared by
 * every subscriber, most of whom are v1.0 calls). A `task` event is already a fresh view.
 */
export function stampEvent(event: StreamResponse, version: number): StreamResponse {
  const generation = generationString(version);
  if (event.statusUpdate) return { statusUpdate: { ...event.statusUpdate, generation } };
  if (event.artifactUpdate) return { artifactUpdate: { ...event.artifactUpdate, generation } };
  if (event.task) return { task: { ...event.task, generation } };
  return event;
}

/** The generation a `Last-Event-ID` names for `taskId`, or undefined when it names another task or nothing. */
export function resumeGeneration(lastEventId: string | undefined, taskId: string): number | undefined {
  if (lastEventId === undefined) return undefined;
  const at = lastEventId.lastIndexOf(':');
  if (at <= 0 || lastEventId.slice(0, at) !== taskId) return undefined;
  const digits = lastEventId.slice(at + 1);
  if (!/^[0-9]{1,15}$/.test(digits)) return undefined;
  return Number(digits);
}

/**
 * The task as answered to call `ctx`: {@link viewTask}, with its generation when the call opted
 * in to the draft (GEN-2).
 */
export function replyTask(
  settings: GenerationSettings | undefined,
  ctx: ServerCallContext,
  record: StoredTask,
  historyLength?: number,
): Task {
  const task = viewTask(record.task, historyLength);
  return generationOn(settings, ctx) ? stampTask(task, record.version) : task;
}
