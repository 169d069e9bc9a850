/**
 * `bench`: a tiny command language that exercises each protocol path, for benchmarks,
 * interop tests and demos. The message text selects the behaviour:
 *
 * - `echo:<s>`       a direct Message with one text part `<s>`
 * - `task:<s>`       a Task: WORKING, artifact `out` = `<s>`, COMPLETED
 * - `stream:<n>`     a Task: WORKING, `n` chunks of artifact `out` with texts `chunk-1` ...
 *                    `chunk-<n>` (append after the first, lastChunk on the last), COMPLETED
 * - `slow:<ms>`      a Task: WORKING, then COMPLETED after `<ms>` ms with `out` = `slept <ms>`;
 *                    CancelTask meanwhile cancels it at once
 * - `input:<q>`      a Task in INPUT_REQUIRED asking `<q>`; the next message on that task
 *                    completes it with `out` = that message's text
 *
 * Anything else is answered like `echo:`.
 */
import type { AgentExecutor, RequestContext, TaskEventSink } from '../core/executor.js';
import { KIT_VERSION, type BuiltInCard } from './card.js';

/** The id of the one artifact the bench agent writes. */
export const BENCH_ARTIFACT_ID = 'out';
/** Upper bound for `stream:<n>`, so one request cannot occupy the server indefinitely. */
export const MAX_STREAM_CHUNKS = 100_000;
/** Upper bound for `slow:<ms>` (ten minutes). */
export const MAX_SLOW_MS = 600_000;

function splitCommand(text: string): { verb: string; arg: string } {
  const colon = text.indexOf(':');
  if (colon < 0) return { verb: '', arg: text };
  return { verb: text.slice(0, colon).trim().toLowerCase(), arg: text.slice(colon + 1) };
}

function parseCount(arg: string, max: number): number | undefined {
  const trimmed = arg.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n <= max ? n : undefined;
}

/** Resolves after `ms`, or early (with `false`) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function streamChunks(n: number, ctx: RequestContext, events: TaskEventSink): Promise<void> {
  await events.working();
  for (let i = 0; i < n; i++) {
    if (ctx.signal.aborted) return;
    await events.artifact(
      { artifactId: BENCH_ARTIFACT_ID, text: `chunk-${i + 1}` },
      { append: i > 0, lastChunk: i === n - 1 },
    );
  }
  await events.complete();
}

/** The bench agent's executor. */
export const benchExecutor: AgentExecutor = {
  async execute(ctx, events) {
    // A message on an existing task can only be the answer to an `input:` question (every
    // other command ends its task). The server has already moved the task from
    // INPUT_REQUIRED to WORKING when it recorded the message, so the state is not checked.
    if (ctx.task) {
      await events.working();
      await events.artifact({ artifactId: BENCH_ARTIFACT_ID, text: ctx.text });
      await events.complete();
      return;
    }
    const { verb, arg } = splitCommand(ctx.text);
    switch (verb) {
      case 'task':
        await events.working();
        await events.artifact({ artifactId: BENCH_ARTIFACT_ID, text: arg });
        await events.complete();
        return;
      case 'stream': {
        const n = parseCount(arg, MAX_STREAM_CHUNKS);
        if (n === undefined || n < 1) {
          await events.reject(`stream:<n> needs a whole number from 1 to ${MAX_STREAM_CHUNKS}`);
          return;
        }
        await streamChunks(n, ctx, events);
        return;
      }
      case 'slow': {
        const ms = parseCount(arg, MAX_SLOW_MS);
        if (ms === undefined) {
          await events.reject(`slow:<ms> needs a whole number of milliseconds up to ${MAX_SLOW_MS}`);
          return;
        }
        await events.working(`sleeping ${ms} ms`);
        // CancelTask aborts the signal; the protocol layer records CANCELED, we just stop.
        if (!(await sleep(ms, ctx.signal))) return;
        await events.artifact({ artifactId: BENCH_ARTIFACT_ID, text: `slept ${ms}` });
        await events.complete();
        return;
      }
      case 'input':
        await events.requireInput(arg);
        return;
      case 'echo':
        await events.reply(arg);
        return;
      default:
        await events.reply(ctx.text);
    }
  },
};

/** The bench agent's card. */
export const benchCard: BuiltInCard = {
  name: 'bench',
  description:
    'Exercises every protocol path on command: echo:<s>, task:<s>, stream:<n>, slow:<ms>, input:<question>.',
  version: KIT_VERSION,
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'echo:<s> answers with a direct message <s>.',
      tags: ['bench'],
      examples: ['echo:hello'],
    },
    {
      id: 'task',
      name: 'Task',
      description: 'task:<s> runs a task whose artifact "out" holds <s>.',
      tags: ['bench'],
      examples: ['task:hello'],
    },
    {
      id: 'stream',
      name: 'Stream',
      description: 'stream:<n> streams n chunks of artifact "out": chunk-1 ... chunk-<n>.',
      tags: ['bench', 'streaming'],
      examples: ['stream:100'],
    },
    {
      id: 'slow',
      name: 'Slow',
      description: 'slow:<ms> completes after <ms> milliseconds unless canceled.',
      tags: ['bench', 'cancel'],
      examples: ['slow:1000'],
    },
    {
      id: 'input',
      name: 'Input required',
      description: 'input:<question> asks <question>; your next message completes the task.',
      tags: ['bench', 'multi-turn'],
      examples: ['input:what is your name?'],
    },
  ],
};
