/**
 * A duplicate SendMessage whose original runs on another replica (issue 26, defect 7): the
 * claim it finds is `pending` and the task does not exist yet (the agent has not emitted its
 * first event). Instead of answering UnavailableError at once, the duplicate waits, bounded,
 * for the original to show its outcome in the store: the task, a direct message reply, or its
 * claim removed (the original failed: this request then holds the messageId and runs).
 */
import { UnavailableError } from '../../errors/a2a-error.js';
import type { IdempotencyKey, IdempotencyRecord, TaskScope, TaskStore } from '../stores/task-store.js';
import type { TaskManager } from '../task-manager.js';

/**
 * Longest wait of such a duplicate: the default execution lease, after which an original
 * that left nothing is a dead replica's, for crash recovery to settle.
 */
export const DUPLICATE_WAIT_MS = 30_000;

/** First and longest pause between two reads of the store while waiting. */
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 500;

/**
 * True for a store replicas share (it offers `listInterruptedBefore`: PostgreSQL): only there
 * can a pending claim without a task belong to a send still running in another process.
 */
export function isSharedByReplicas(store: TaskStore): boolean {
  return typeof store.listInterruptedBefore === 'function';
}

/** What the wait found: the original's record with its outcome, or this request's own claim. */
export type OriginalFound =
  { readonly kind: 'record'; readonly record: IdempotencyRecord } | { readonly kind: 'claimed' };

/**
 * Reads the claim of `key` again (claiming it with `claim` if it is gone) until it records an
 * outcome or its task exists, the request is aborted, or `maxWaitMs` passed (UnavailableError).
 * Each read is one store call, at most every MAX_POLL_MS.
 */
export async function waitForOriginal(
  store: TaskStore,
  manager: TaskManager,
  scope: TaskScope,
  key: IdempotencyKey,
  claim: IdempotencyRecord,
  signal: AbortSignal | undefined,
  maxWaitMs = DUPLICATE_WAIT_MS,
): Promise<OriginalFound> {
  const end = Date.now() + maxWaitMs;
  let pause = FIRST_POLL_MS;
  for (;;) {
    const left = end - Date.now();
    if (left <= 0 || signal?.aborted) break;
    await sleep(Math.min(pause, left), signal);
    pause = Math.min(pause * 2, MAX_POLL_MS);
    const record = await store.claimIdempotencyKey(key, claim);
    if (!record) return { kind: 'claimed' };
    if (record.status !== 'pending') return { kind: 'record', record };
    if (await manager.get(scope, record.taskId)) return { kind: 'record', record };
  }
  throw new UnavailableError('a message with this messageId is still being processed; retry later');
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
