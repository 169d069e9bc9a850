/**
 * {@link ThreadWebhookSender}: the webhook POSTs (signing, the HTTP exchange, reading the capped
 * answer) on a worker thread of their own, so their CPU (syscalls, TLS, the JWT signature) stays
 * off the event loop that serves requests. The delivery worker keeps everything that touches
 * the outbox and the configs; the thread gets plain jobs in batches and answers in batches.
 * A thread that stops (a crash, `terminate`) answers the jobs it held as failed with
 * {@link SENDER_STOPPED}, so they are retried and never lost; the next batch starts a new thread.
 * Until a thread says it is ready (booting one takes tens of milliseconds, far more on a busy
 * machine), batches go out from the calling loop, so no notification waits for the boot; a
 * config's notifications are sent one at a time, so switching over cannot reorder them.
 */
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';
import { requireNode } from '../../core/node-modules.js';
import type { NotificationSigner } from '../../core/push/notification-signing.js';
import {
  InlineWebhookSender,
  SENDER_STOPPED,
  type SendJob,
  type SendResult,
  type SendResultsListener,
  type SenderSettings,
  type WebhookSender,
} from './webhook-sender.js';

/** The thread's `workerData`. */
export interface SenderThreadData {
  settings: SenderSettings;
  signingKey?: NotificationSigner['signingKey'];
}

/**
 * Messages to the thread: a batch of jobs, flat (see {@link encodeJobs}), or `'abort'`.
 * Flat arrays of strings and numbers cost the posting thread about half of what the same
 * jobs as objects cost to clone.
 */
export type ToSenderThread = readonly (string | number)[] | 'abort';

/** Jobs as one flat array: id, url, address, family, body, header count, then names and values. */
export function encodeJobs(jobs: readonly SendJob[]): (string | number)[] {
  const flat: (string | number)[] = [];
  for (const job of jobs) {
    const names = Object.keys(job.headers);
    flat.push(job.id, job.url, job.address, job.family, job.body, names.length);
    for (const name of names) flat.push(name, job.headers[name]!);
  }
  return flat;
}

/** The jobs {@link encodeJobs} flattened. */
export function decodeJobs(flat: readonly (string | number)[]): SendJob[] {
  const jobs: SendJob[] = [];
  let at = 0;
  while (at < flat.length) {
    const [id, url, address, family, body, count] = flat.slice(at, at + 6) as [
      string,
      string,
      string,
      4 | 6,
      string,
      number,
    ];
    at += 6;
    const headers: Record<string, string> = {};
    for (let i = 0; i < count; i++, at += 2) headers[flat[at] as string] = flat[at + 1] as string;
    jobs.push({ id, url, address, family, body, headers });
  }
  return jobs;
}

/** Results as one flat array: id, status (-1: none), error (`''`: none), code (`''`: none). */
export function encodeResults(results: readonly SendResult[]): (string | number)[] {
  const flat: (string | number)[] = [];
  for (const r of results) flat.push(r.id, r.status ?? -1, r.error ?? '', r.code ?? '');
  return flat;
}

/** The results {@link encodeResults} flattened. */
export function decodeResults(flat: readonly (string | number)[]): SendResult[] {
  const results: SendResult[] = [];
  for (let at = 0; at + 3 < flat.length; at += 4) {
    const status = flat[at + 1] as number;
    const error = flat[at + 2] as string;
    const code = flat[at + 3] as string;
    results.push({
      id: flat[at] as string,
      ...(status >= 0 ? { status } : {}),
      ...(error ? { error } : {}),
      ...(code ? { code } : {}),
    });
  }
  return results;
}

/** What the thread posts once its modules are loaded and it takes jobs. */
export const SENDER_READY = 'ready';

/** One thread and the ids of the jobs it has not answered yet. */
interface SenderThread {
  readonly worker: Worker;
  readonly held: Set<string>;
  ready: boolean;
  /** Resolves true once the thread is ready, false if it stopped first. */
  readonly started: Promise<boolean>;
}

/** Sends on a worker thread, started at the first batch and again after one stopped. */
export class ThreadWebhookSender implements WebhookSender {
  readonly #data: SenderThreadData;
  readonly #onResults: SendResultsListener;
  readonly #onError: (error: unknown) => void;
  #thread: SenderThread | undefined;
  /** Sends while no thread is ready (made at the first such batch). */
  #inline: InlineWebhookSender | undefined;
  readonly #makeInline: () => InlineWebhookSender;

  constructor(
    settings: SenderSettings,
    signer: NotificationSigner | undefined,
    onResults: SendResultsListener,
    onError: (error: unknown) => void,
  ) {
    this.#data = { settings, ...(signer ? { signingKey: signer.signingKey } : {}) };
    this.#onResults = onResults;
    this.#onError = onError;
    this.#makeInline = () => new InlineWebhookSender(settings, signer, onResults);
  }

  send(jobs: readonly SendJob[]): void {
    if (jobs.length === 0) return;
    const thread = this.#thread ?? this.#start();
    if (!thread.ready) {
      (this.#inline ??= this.#makeInline()).send(jobs);
      return;
    }
    for (const job of jobs) thread.held.add(job.id);
    const message: ToSenderThread = encodeJobs(jobs);
    thread.worker.postMessage(message);
  }

  abortAll(): void {
    const message: ToSenderThread = 'abort';
    this.#thread?.worker.postMessage(message);
    this.#inline?.abortAll();
  }

  /** Starts a thread if none runs; resolves true once it takes jobs (false if it stopped first). */
  ready(): Promise<boolean> {
    return (this.#thread ?? this.#start()).started;
  }

  async close(): Promise<void> {
    await this.terminateThread();
    await this.#inline?.close();
  }

  /**
   * Stops the thread at once, as a crash would (close() uses it once nothing runs; tests use
   * it to check that a lost thread loses no delivery). False when no thread runs.
   */
  async terminateThread(): Promise<boolean> {
    const thread = this.#thread;
    if (!thread) return false;
    await thread.worker.terminate();
    return true;
  }

  #start(): SenderThread {
    let started!: (ready: boolean) => void;
    const thread: SenderThread = {
      worker: startSenderThread(this.#data),
      held: new Set(),
      ready: false,
      started: new Promise<boolean>((resolve) => (started = resolve)),
    };
    this.#thread = thread;
    // The server's sockets keep the process alive, not this thread.
    thread.worker.unref();
    thread.worker.on('message', (flat: (string | number)[] | typeof SENDER_READY) => {
      if (flat === SENDER_READY) {
        thread.ready = true;
        started(true);
        return;
      }
      // Only jobs still held: an answer is given once, whatever else happened to the thread.
      const answered = decodeResults(flat).filter((result) => thread.held.delete(result.id));
      if (answered.length > 0) this.#onResults(answered);
    });
    thread.worker.on('error', (error) => this.#onError(error));
    thread.worker.on('exit', () => {
      started(false);
      if (this.#thread === thread) this.#thread = undefined;
      if (thread.held.size === 0) return;
      const lost: SendResult[] = [...thread.held].map((id) => ({
        id,
        error: 'the webhook sender thread stopped before the answer came',
        code: SENDER_STOPPED,
      }));
      thread.held.clear();
      this.#onResults(lost);
    });
    return thread;
  }
}

/**
 * Starts the thread: the compiled entry next to this module, or, when this module runs from
 * TypeScript source under tsx (tests, benchmarks), the `.ts` entry with tsx registered first:
 * on Node 20 a worker thread does not inherit the loader hooks of the thread that starts it.
 */
function startSenderThread(workerData: SenderThreadData): Worker {
  // Loaded here, not at import: workerd has no worker_threads (the server entry loads there).
  const { Worker } = requireNode<typeof WorkerThreads>('node:worker_threads');
  // Not `new URL('./x', import.meta.url)` as such: bundlers (Next.js's webpack) would take the
  // thread's entry for an asset of theirs; it is this package's own file, next to this one.
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    return new Worker(new URL('./webhook-sender-thread.js', here), { workerData });
  }
  const entry = JSON.stringify(new URL('./webhook-sender-thread.ts', here).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((api) => { api.register(); return import(${entry}); });`;
  return new Worker(boot, { eval: true, workerData });
}
