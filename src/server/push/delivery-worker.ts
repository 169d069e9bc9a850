/**
 * The push delivery worker (SRV-PUSH-2..6): claims due deliveries from the outbox with a lease,
 * POSTs each to its config's webhook (a config's notifications one at a time, in order: the
 * outbox hands out only a config's oldest pending one), and settles the outcome: delivered on
 * 2xx, otherwise retried with backoff until the retry policy dead-letters it. At least once: a
 * delivery is settled only after the receiver answered, so a crash resends it once its lease
 * expires. Concurrency is bounded; close() stops claiming and lets the running POSTs finish
 * for a grace period, then aborts them.
 */
import { setMaxListeners } from 'node:events';
import { newId } from '../../model/ids.js';
import type { Task } from '../../model/schema.js';
import type { PushConfigStore, StoredPushConfig } from '../../core/stores/push-config-store.js';
import type { TaskScope } from '../../core/stores/task-store.js';
import { isV03PushVersion, pushPayloadFor, type PushPayload } from '../../bindings/compat-v03/push.js';
import {
  parseWebhookUrl,
  resolveWebhook,
  systemResolver,
  WebhookAddressError,
  type AddressPolicy,
  type HostResolver,
} from './address-guard.js';
import {
  PUSH_ID_HEADER,
  PUSH_SIGNATURE_HEADER,
  type NotificationSigner,
} from '../../core/push/notification-signing.js';
import type { PushAttempt, PushDelivery, PushOutbox, PushSettlement } from '../../core/push/outbox.js';
import { RetryPolicy } from '../../core/push/retry-policy.js';
import {
  WebhookClient,
  WebhookRequestError,
  type WebhookLimits,
  type WebhookTls,
} from './webhook-request.js';

/** The header that carries the config's token (N11). */
export const PUSH_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** Reads a task as a client would see it (GetTask), for the notification bodies that carry the whole task. */
export type PushTaskReader = (scope: TaskScope, taskId: string) => Promise<Task | undefined>;

/** Options of {@link PushDeliveryWorker}. */
export interface PushDeliveryWorkerOptions extends WebhookLimits {
  outbox: PushOutbox;
  /** Where the configs are read at delivery time (a deleted config gets nothing more). */
  configs: PushConfigStore;
  retry?: RetryPolicy;
  addressPolicy?: AddressPolicy;
  /** @default the system resolver */
  resolve?: HostResolver;
  /** Signs every notification when given. */
  signer?: NotificationSigner;
  /**
   * Where configs registered by v0.3 clients get the task they are sent (SRV-COMPAT-8); may
   * also be given later with {@link PushDeliveryWorker.readTasksWith}. Without it they get
   * the event in v0.3 form.
   */
  readTask?: PushTaskReader;
  /** TLS of https: webhooks (extra trusted CAs). */
  tls?: WebhookTls;
  /** Most POSTs in flight at once. @default 16 */
  concurrency?: number;
  /** How long a claim is held; must exceed `timeoutMs`. @default timeoutMs * 2 + 30000 */
  leaseMs?: number;
  /** How often the outbox is polled when it cannot say when work is due (shared stores). @default 1000 */
  pollMs?: number;
  /** How long close() lets running POSTs finish before aborting them. @default 5000 */
  closeGraceMs?: number;
  /** This worker's id in leases. @default a UUID */
  workerId?: string;
  /** Failures of the outbox itself (a store error); delivery failures are recorded, not reported. */
  onError?: (error: unknown) => void;
}

/** Drains a {@link PushOutbox}. */
export class PushDeliveryWorker {
  readonly workerId: string;
  readonly #outbox: PushOutbox;
  readonly #configs: PushConfigStore;
  readonly #retry: RetryPolicy;
  readonly #policy: AddressPolicy;
  readonly #resolve: HostResolver;
  readonly #signer: NotificationSigner | undefined;
  #readTask: PushTaskReader | undefined;
  readonly #client: WebhookClient;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #closeGraceMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #stop = new AbortController();
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #pumping = false;
  /** The running pump (a claim may be on its way): close() waits for it. */
  #pumpRun: Promise<void> | undefined;
  #again = false;
  #started = false;
  #closed = false;

  constructor(options: PushDeliveryWorkerOptions) {
    this.workerId = options.workerId ?? newId();
    this.#outbox = options.outbox;
    this.#configs = options.configs;
    this.#retry = options.retry ?? new RetryPolicy();
    this.#policy = options.addressPolicy ?? {};
    this.#resolve = options.resolve ?? systemResolver;
    this.#signer = options.signer;
    this.#readTask = options.readTask;
    this.#concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.#leaseMs = options.leaseMs ?? timeoutMs * 2 + 30_000;
    this.#pollMs = options.pollMs ?? 1000;
    this.#closeGraceMs = options.closeGraceMs ?? 5000;
    this.#onError = options.onError ?? ((error) => console.error('a2a-kit: push outbox error', error));
    this.#client = new WebhookClient({ ...options, maxSockets: this.#concurrency });
    // Each running POST listens on the stop signal: at most `concurrency` at once, none left over.
    setMaxListeners(this.#concurrency + 1, this.#stop.signal);
  }

  /** Sets where v0.3-registered configs read the task they are sent (see `readTask`). */
  readTasksWith(reader: PushTaskReader): void {
    this.#readTask = reader;
  }

  /** Starts draining (the backlog a durable outbox kept across a restart included). */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#outbox.onEnqueued?.(this.wake);
    this.wake();
  }

  /** Looks for due work now (called when something was enqueued). */
  readonly wake = (): void => {
    if (this.#closed || !this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumpRun = this.#pump();
  };

  /** Stops claiming, waits up to the grace period for running POSTs, then aborts them. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    // A claim answered after this point is given back by the pump (see #pump).
    await this.#pumpRun;
    if (this.#running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#closeGraceMs);
      });
      await Promise.race([Promise.allSettled([...this.#running]), grace]);
      clearTimeout(timer);
      this.#stop.abort();
      await Promise.allSettled([...this.#running]);
    }
    this.#client.close();
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        while (!this.#closed && this.#running.size < this.#concurrency) {
          if (this.#nothingDue()) break;
          const claimed = await this.#outbox.claim(
            this.workerId,
            this.#concurrency - this.#running.size,
            this.#leaseMs,
          );
          if (claimed.length === 0) break;
          if (this.#closed) {
            await this.#giveBack(claimed);
            break;
          }
          for (const delivery of claimed) this.#launch(delivery);
        }
      } while (this.#again && !this.#closed);
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#pumping = false;
      // At full capacity a finishing POST wakes the pump: no timer needed (and no scan for it).
      if (this.#running.size < this.#concurrency) this.#schedule();
    }
  }

  /**
   * Claimed while closing: released at once (a lease of 0 ms), so the next worker need not
   * wait for it to expire; an outbox without renew gets a retry due now (one attempt more).
   */
  async #giveBack(claimed: PushDelivery[]): Promise<void> {
    for (const delivery of claimed) {
      if (this.#outbox.renew) await this.#outbox.renew(delivery.id, this.workerId, 0);
      else {
        await this.#settle(
          delivery,
          Date.now(),
          { error: 'the server stopped' },
          { outcome: 'retry', nextAttemptAtMs: Date.now(), error: 'interrupted: the server stopped' },
        );
      }
    }
  }

  #launch(delivery: PushDelivery): void {
    const run = this.#deliver(delivery)
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        this.#running.delete(run);
        this.wake();
      });
    this.#running.add(run);
  }

  /**
   * True when a store outbox (polled, not process-local) says nothing is due: the claim, a
   * write that would find nothing (on SQLite, a commit), is skipped. A process-local outbox
   * claims cheaply, while its nextDueAtMs scans every config, so it is not asked here.
   */
  #nothingDue(): boolean {
    const outbox = this.#outbox;
    if (outbox.processLocal === true || !outbox.nextDueAtMs) return false;
    return !((outbox.nextDueAtMs() ?? Infinity) <= Date.now());
  }

  /** Sets the timer for the next due retry or poll. */
  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#closed) return;
    const due = this.#outbox.nextDueAtMs?.();
    // Nothing pending in an outbox only this process writes: the next enqueue wakes us.
    if (this.#outbox.processLocal === true && due === undefined) return;
    const delay =
      due === undefined ? this.#pollMs : Math.min(Math.max(due - Date.now(), 0), this.#pollMs * 60);
    this.#timer = setTimeout(this.wake, Math.max(delay, 1));
    this.#timer.unref();
  }

  async #deliver(delivery: PushDelivery): Promise<void> {
    const started = Date.now();
    const config = await this.#configs.get(
      { tenant: delivery.tenant, owner: delivery.owner },
      delivery.taskId,
      delivery.configId,
    );
    if (!config) {
      await this.#settle(
        delivery,
        started,
        { error: 'the push config was deleted' },
        {
          outcome: 'dead',
          error: 'the push config was deleted before delivery',
        },
      );
      return;
    }
    let outcome: { status?: number; error?: string };
    let retryable = true;
    try {
      const url = parseWebhookUrl(config.url, this.#policy);
      const address = await resolveWebhook(url, this.#policy, this.#resolve);
      const payload = await this.#payload(config, delivery);
      const headers = await this.#headers(config, delivery, url, payload);
      const result = await this.#client.post(url, address, headers, payload.body, this.#stop.signal);
      outcome =
        result.status >= 200 && result.status < 300
          ? { status: result.status }
          : { status: result.status, error: `the webhook answered HTTP ${result.status}` };
    } catch (error) {
      if (error instanceof WebhookAddressError) {
        retryable = error.transient;
        outcome = { error: error.message };
      } else if (error instanceof WebhookRequestError) {
        if (error.code === 'ABORTED') {
          // Stopped by close(): give the delivery back, due at once, for the next start.
          await this.#settle(
            delivery,
            started,
            { error: 'the server stopped' },
            {
              outcome: 'retry',
              nextAttemptAtMs: Date.now(),
              error: 'interrupted: the server stopped',
            },
          );
          return;
        }
        outcome = { error: `${error.code ? `${error.code}: ` : ''}${error.message}` };
      } else throw error;
    }
    const settlement: PushSettlement =
      outcome.error === undefined
        ? { outcome: 'delivered' }
        : retryable
          ? this.#retry.afterFailure(delivery, outcome.error)
          : { outcome: 'dead', error: outcome.error };
    await this.#settle(delivery, started, outcome, settlement);
  }

  /**
   * The body in the form the config was registered with (SRV-COMPAT-8): the outbox's v1.0
   * StreamResponse as is, or for a v0.3 config the v0.3 form, built now from the task as it is.
   */
  async #payload(config: StoredPushConfig, delivery: PushDelivery): Promise<PushPayload> {
    const version = config.protocolVersion;
    const task =
      isV03PushVersion(version) && this.#readTask
        ? await this.#readTask({ tenant: delivery.tenant, owner: delivery.owner }, delivery.taskId)
        : undefined;
    return pushPayloadFor(version, delivery.payload, task);
  }

  async #headers(
    config: StoredPushConfig,
    delivery: PushDelivery,
    url: URL,
    payload: PushPayload,
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      'content-type': payload.contentType,
      'user-agent': 'a2a-kit push',
      [PUSH_ID_HEADER]: delivery.id,
    };
    const auth = config.authentication;
    if (auth?.scheme)
      headers.authorization = auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme;
    if (config.token) headers[PUSH_TOKEN_HEADER] = config.token;
    if (this.#signer) headers[PUSH_SIGNATURE_HEADER] = this.#signer.sign(payload.body, url.href, delivery.id);
    return headers;
  }

  async #settle(
    delivery: PushDelivery,
    started: number,
    outcome: { status?: number; error?: string },
    settlement: PushSettlement,
  ): Promise<void> {
    const attempt: PushAttempt = {
      atMs: started,
      durationMs: Date.now() - started,
      ok: settlement.outcome === 'delivered',
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
    await this.#outbox.settle(delivery.id, this.workerId, attempt, settlement);
  }
}
