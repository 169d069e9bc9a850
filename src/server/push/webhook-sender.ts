/**
 * What sends webhook POSTs for the delivery worker: the worker prepares each notification on
 * the event loop that serves requests (config, checked address, body, headers) and hands it to
 * a {@link WebhookSender}, which signs it, POSTs it and reads the capped answer. The sender runs
 * on a worker thread ({@link ThreadWebhookSender}, the default) or on the main thread
 * ({@link InlineWebhookSender}); both answer every job exactly once.
 */
import { setMaxListeners } from 'node:events';
import { PUSH_SIGNATURE_HEADER, type NotificationSigner } from '../../core/push/notification-signing.js';
import {
  WebhookClient,
  WebhookRequestError,
  type WebhookLimits,
  type WebhookTls,
} from './webhook-request.js';

/** One POST to make: plain data, so it crosses to a worker thread as is. */
export interface SendJob {
  /** The delivery id (also the signature's `jti`). */
  readonly id: string;
  /** The webhook URL, already checked (its `href`). */
  readonly url: string;
  /** The address the guard checked: the only one the connection may go to. */
  readonly address: string;
  readonly family: 4 | 6;
  /** Request headers, the signature excepted (the sender adds it). */
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** How one job ended: an HTTP answer (`status`), or no answer (`error`, `code`). */
export interface SendResult {
  readonly id: string;
  readonly status?: number;
  readonly error?: string;
  /** The failure's code: a network code, `ETIMEDOUT`, `ECONNTIMEOUT`, `ABORTED`, `ESENDERSTOPPED`. */
  readonly code?: string;
}

/** Code of the results of jobs a sender thread held when it stopped. */
export const SENDER_STOPPED = 'ESENDERSTOPPED';

/** What a sender needs to sign and send (data only, for a thread's `workerData` too). */
export interface SenderSettings extends WebhookLimits {
  maxSockets: number;
  tls?: WebhookTls;
}

/** Sends jobs and answers each one exactly once through the `onResults` it was made with. */
export interface WebhookSender {
  /** Starts the POSTs of `jobs` (one batch). */
  send(jobs: readonly SendJob[]): void;
  /** Stops every running POST: their results come back with code `ABORTED`. */
  abortAll(): void;
  /** Ends the sender (connections closed, thread stopped); jobs still held are answered first. */
  close(): Promise<void>;
}

/** Receives results, several at once when they came together. */
export type SendResultsListener = (results: readonly SendResult[]) => void;

/** Signs and POSTs one job; never rejects (a failure is a result). */
export async function sendJob(
  client: WebhookClient,
  signer: NotificationSigner | undefined,
  job: SendJob,
  signal: AbortSignal,
): Promise<SendResult> {
  try {
    const headers = job.headers;
    if (signer) headers[PUSH_SIGNATURE_HEADER] = signer.sign(job.body, job.url, job.id);
    const address = { address: job.address, family: job.family };
    const answer = await client.post(new URL(job.url), address, headers, job.body, signal);
    return { id: job.id, status: answer.status };
  } catch (error) {
    if (error instanceof WebhookRequestError) {
      return { id: job.id, error: error.message, ...(error.code ? { code: error.code } : {}) };
    }
    return { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Sends on the event loop it is called on (`push.senderThread: false`): no thread, the POSTs'
 * CPU shares the loop with the requests the server serves.
 */
export class InlineWebhookSender implements WebhookSender {
  readonly #client: WebhookClient;
  readonly #signer: NotificationSigner | undefined;
  readonly #onResults: SendResultsListener;
  #stop = stopSignal();

  constructor(
    settings: SenderSettings,
    signer: NotificationSigner | undefined,
    onResults: SendResultsListener,
  ) {
    this.#client = new WebhookClient(settings);
    this.#signer = signer;
    this.#onResults = onResults;
  }

  send(jobs: readonly SendJob[]): void {
    const signal = this.#stop.signal;
    for (const job of jobs) {
      void sendJob(this.#client, this.#signer, job, signal).then((result) => this.#onResults([result]));
    }
  }

  abortAll(): void {
    const stop = this.#stop;
    this.#stop = stopSignal();
    stop.abort();
  }

  close(): Promise<void> {
    this.#client.close();
    return Promise.resolve();
  }
}

/** An AbortController every running POST may listen on: the worker bounds them (its concurrency). */
export function stopSignal(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
