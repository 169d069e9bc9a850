/**
 * The push delivery worker (SRV-PUSH-2..6): claims due deliveries from the outbox with a lease,
 * POSTs each to its config's webhook (a config's notifications one at a time, in order: the
 * outbox hands out only a config's oldest pending one), and settles the outcome: delivered on
 * 2xx, otherwise retried with backoff until the retry policy dead-letters it. At least once: a
 * delivery is settled only after the receiver answered, so a crash resends it once its lease
 * expires. Concurrency is bounded; close() stops claiming and lets the running POSTs finish
 * for a grace period, then aborts them.
 *
 * This event loop claims, reads the config, checks the address, builds the body and headers,
 * and settles; the signing and the POST itself go to a {@link WebhookSender}: by default a
 * worker thread of this worker's own ({@link ThreadWebhookSender}), fed all the deliveries of
 * one pump pass in one message.
 */
import { newId } from '../../model/ids.js';
import type { PushConfigStore } from '../../core/stores/push-config-store.js';
import type { NotificationSigner } from '../../core/push/notification-signing.js';
import type { PushAttempt, PushOutbox } from '../../core/push/outbox.js';
import { RetryPolicy } from '../../core/push/retry-policy.js';
import { systemResolver, type AddressPolicy, type HostResolver } from './address-guard.js';
import {
  DeliveryPreparer,
  interrupted,
  type Completion,
  type Flight,
  type PushTaskReader,
} from './delivery-preparation.js';
import type { WebhookLimits, WebhookTls } from './webhook-request.js';
import {
  InlineWebhookSender,
  type SendJob,
  type SendResult,
  type SenderSettings,
  type WebhookSender,
} from './webhook-sender.js';
import { ThreadWebhookSender } from './webhook-sender-threaded.js';

export { PUSH_TOKEN_HEADER, type PushTaskReader } from './delivery-preparation.js';

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
  /**
   * A2A 1.1 draft (GEN-6): the server's draft support is on, so configs registered by a call
   * that opted in get each change's `generation`. @default false (every config is notified as v1.0)
   */
  generation?: boolean;
  /** TLS of https: webhooks (extra trusted CAs). */
  tls?: WebhookTls;
  /** Most POSTs in flight at once. @default 16 */
  concurrency?: number;
  /**
   * How long a claim is held; must exceed `timeoutMs` (the constructor throws a RangeError
   * otherwise). @default timeoutMs * 2 + 30000
   */
  leaseMs?: number;
  /** How often the outbox is polled when it cannot say when work is due (shared stores). @default 1000 */
  pollMs?: number;
  /** How long close() lets running POSTs finish before aborting them. @default 5000 */
  closeGraceMs?: number;
  /** This worker's id in leases. @default a UUID */
  workerId?: string;
  /**
   * Sign and POST on a worker thread of this worker's own (true), or on this event loop
   * (false: no thread; the POSTs' CPU then competes with the requests served). @default true
   */
  senderThread?: boolean;
  /** Failures of the outbox itself (a store error); delivery failures are recorded, not reported. */
  onError?: (error: unknown) => void;
}

/** How long close() waits for aborted POSTs to answer before stopping the sender thread. */
const ABORT_ANSWER_MS = 2000;

/** Drains a {@link PushOutbox}. */
export class PushDeliveryWorker {
  readonly workerId: string;
  readonly #outbox: PushOutbox;
  readonly #preparer: DeliveryPreparer;
  readonly #sender: WebhookSender;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #closeGraceMs: number;
  readonly #onError: (error: unknown) => void;
  /** Claimed and not yet settled (each claim its own flight): at most `concurrency`. */
  readonly #inFlight = new Set<Flight>();
  /** The flights whose POST is out, by delivery id: the sender's results name the delivery. */
  readonly #sending = new Map<string, Flight>();
  /** Claims made so far: each claim's lease owner is `workerId/n`. */
  #claims = 0;
  /** Who waits for #inFlight to empty (close() only: a few at most). */
  readonly #drainWaiters: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The pump run wake() asked for, due at the end of this turn. */
  #pumpSoon: NodeJS.Immediate | undefined;
  #pumping = false;
  /** The running pump (a claim may be on its way): close() waits for it. */
  #pumpRun: Promise<void> | undefined;
  #again = false;
  #started = false;
  #closed = false;
  /** Set by close() once it aborted the POSTs: prepared deliveries are given back, not sent. */
  #aborting = false;

  constructor(options: PushDeliveryWorkerOptions) {
    this.workerId = options.workerId ?? newId();
    this.#outbox = options.outbox;
    this.#preparer = new DeliveryPreparer(
      options.configs,
      options.addressPolicy ?? {},
      options.resolve ?? systemResolver,
      options.retry ?? new RetryPolicy(),
      options.readTask,
      options.generation === true,
    );
    this.#concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.#leaseMs = options.leaseMs ?? timeoutMs * 2 + 30_000;
    // A lease that can end before its POST does hands the delivery to another claim while the
    // first POST still runs: sent twice at once, and the late answer settles someone else's lease.
    if (!(this.#leaseMs > timeoutMs)) {
      throw new RangeError(
        `push leaseMs (${String(this.#leaseMs)}) must exceed timeoutMs (${String(timeoutMs)}): ` +
          'a delivery whose lease ends before its POST does would be sent twice',
      );
    }
    this.#pollMs = options.pollMs ?? 1000;
    this.#closeGraceMs = options.closeGraceMs ?? 5000;
    this.#onError = options.onError ?? ((error) => console.error('a2a-kit: push outbox error', error));
    const settings: SenderSettings = { maxSockets: this.#concurrency };
    if (options.connectTimeoutMs !== undefined) settings.connectTimeoutMs = options.connectTimeoutMs;
    if (options.timeoutMs !== undefined) settings.timeoutMs = options.timeoutMs;
    if (options.maxResponseBytes !== undefined) settings.maxResponseBytes = options.maxResponseBytes;
    if (options.tls !== undefined) settings.tls = options.tls;
    this.#sender =
      options.senderThread === false
        ? new InlineWebhookSender(settings, options.signer, this.#onResults)
        : new ThreadWebhookSender(settings, options.signer, this.#onResults, (error) => this.#onError(error));
  }

  /** Sets where v0.3-registered configs read the task they are sent (see `readTask`). */
  readTasksWith(reader: PushTaskReader): void {
    this.#preparer.readTask = reader;
  }

  /** Starts draining (the backlog a durable outbox kept across a restart included). */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#outbox.onEnqueued?.(this.wake);
    this.wake();
  }

  /**
   * Looks for due work (called when something was enqueued): at the end of this turn of the
   * event loop, so the deliveries of every change saved in the turn go out in one batch.
   */
  readonly wake = (): void => {
    if (this.#closed || !this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumpSoon ??= setImmediate(this.#startPump);
  };

  readonly #startPump = (): void => {
    this.#pumpSoon = undefined;
    if (this.#closed) return;
    if (this.#pumping) this.#again = true;
    else this.#pumpRun = this.#pump();
  };

  /**
   * For tests: stops the sender thread at once, as a crash would (its deliveries are settled
   * as failed attempts and retried; the next batch starts a new thread). False without one.
   */
  terminateSenderThread(): Promise<boolean> {
    return this.#sender instanceof ThreadWebhookSender
      ? this.#sender.terminateThread()
      : Promise.resolve(false);
  }

  /**
   * Starts the sender thread now if none runs and resolves once it takes deliveries (until
   * then they go out from this loop); false without a sender thread.
   */
  senderThreadReady(): Promise<boolean> {
    return this.#sender instanceof ThreadWebhookSender ? this.#sender.ready() : Promise.resolve(false);
  }

  /** Stops claiming, waits up to the grace period for running POSTs, then aborts them. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    clearImmediate(this.#pumpSoon);
    // A claim answered after this point is given back by the pump (see #pump).
    await this.#pumpRun;
    if (this.#inFlight.size > 0) await this.#drainedWithin(this.#closeGraceMs);
    if (this.#inFlight.size > 0) {
      // Aborted POSTs answer ABORTED and are given back, due at once, for the next start.
      this.#aborting = true;
      this.#sender.abortAll();
      await this.#drainedWithin(ABORT_ANSWER_MS);
    }
    // Stopping the sender answers whatever it still held (as failed attempts, retried later).
    await this.#sender.close();
    if (this.#inFlight.size > 0) await this.#drainedWithin(Infinity);
  }

  /** Resolves when nothing is in flight, or after `ms`. */
  async #drainedWithin(ms: number): Promise<void> {
    const drained = new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    if (ms === Infinity) return drained;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([drained, timeout]);
    clearTimeout(timer);
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        while (!this.#closed && this.#inFlight.size < this.#concurrency) {
          if (this.#nothingDue()) break;
          // A lease owner of this claim's own: a settlement made after the lease moved on (to
          // another worker, or to a later claim of this one) is refused by the outbox.
          const lease = `${this.workerId}/${++this.#claims}`;
          const claimed = await this.#outbox.claim(
            lease,
            this.#concurrency - this.#inFlight.size,
            this.#leaseMs,
          );
          if (claimed.length === 0) break;
          const started = Date.now();
          const flights = claimed.map((delivery): Flight => ({ delivery, lease, started, sent: false }));
          if (this.#closed) {
            await this.#giveBack(flights);
            break;
          }
          this.#launch(flights);
        }
      } while (this.#again && !this.#closed);
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#pumping = false;
      // At full capacity a settled delivery wakes the pump: no timer needed (and no scan for it).
      if (this.#inFlight.size < this.#concurrency) this.#schedule();
    }
  }

  /**
   * Claimed while closing: released at once (a lease of 0 ms), so the next worker need not
   * wait for it to expire; an outbox without renew gets a retry due now (one attempt more).
   */
  async #giveBack(flights: readonly Flight[]): Promise<void> {
    for (const flight of flights) {
      if (this.#outbox.renew) await this.#outbox.renew(flight.delivery.id, flight.lease, 0);
      else await this.#settle(interrupted(flight));
    }
  }

  /** Prepares the claimed deliveries and sends those that are ready in one batch. */
  #launch(flights: readonly Flight[]): void {
    for (const flight of flights) this.#inFlight.add(flight);
    this.#prepareAndSend(flights).catch((error: unknown) => {
      // Not expected (the preparer reports its failures): logged, and the places freed so the
      // worker goes on; the deliveries' leases expire and they are sent again.
      this.#onError(error);
      this.#release(flights.filter((flight) => !flight.sent));
      this.#freed();
    });
  }

  async #prepareAndSend(flights: readonly Flight[]): Promise<void> {
    const { jobs, done, failed } = await this.#preparer.prepare(flights, this.#onError);
    const flightOf = new Map(flights.map((flight) => [flight.delivery.id, flight]));
    const send: SendJob[] = [];
    for (const job of jobs) {
      const flight = flightOf.get(job.id);
      if (!flight) continue;
      if (this.#aborting) done.push(interrupted(flight));
      else if (this.#sending.has(job.id)) {
        // An earlier POST of this delivery is still out (its lease ran out before its answer):
        // this claim waits for its own lease to end rather than send it twice at once.
        failed.push(flight);
      } else {
        flight.sent = true;
        this.#sending.set(job.id, flight);
        send.push(job);
      }
    }
    if (send.length > 0) this.#sender.send(send);
    this.#release(failed);
    if (done.length > 0) await this.#complete(done);
    else if (failed.length > 0) this.#freed();
  }

  /** The sender's answers: each settles its delivery once. */
  readonly #onResults = (results: readonly SendResult[]): void => {
    const done: Completion[] = [];
    let dropped = false;
    for (const result of results) {
      const flight = this.#sending.get(result.id);
      if (!flight?.sent) continue;
      this.#sending.delete(result.id);
      flight.sent = false;
      try {
        done.push(this.#preparer.completionOf(flight, result));
      } catch (error) {
        // Not expected: logged, and the delivery left to its lease (sent again once it ends).
        this.#onError(error);
        this.#release([flight]);
        dropped = true;
      }
    }
    if (done.length > 0) void this.#complete(done);
    else if (dropped) this.#freed();
  };

  /** Settles `done`, then frees their places and looks for more work once. */
  async #complete(done: readonly Completion[]): Promise<void> {
    try {
      await Promise.all(done.map((completion) => this.#settle(completion).catch(this.#onError)));
    } finally {
      this.#release(done.map(([flight]) => flight));
      this.#freed();
    }
  }

  /** Frees the places of `flights` (settled, or left to their leases). */
  #release(flights: readonly Flight[]): void {
    for (const flight of flights) {
      this.#inFlight.delete(flight);
      if (this.#sending.get(flight.delivery.id) === flight) this.#sending.delete(flight.delivery.id);
    }
  }

  /** Places were freed: close() may be waiting for none in flight, and the pump for a place. */
  #freed(): void {
    if (this.#inFlight.size === 0) for (const resolve of this.#drainWaiters.splice(0)) resolve();
    this.wake();
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
    let due: number | undefined;
    try {
      due = this.#outbox.nextDueAtMs?.();
    } catch (error) {
      // A store that cannot answer now (in the pump's finally: never let it reject): poll.
      this.#onError(error);
      due = undefined;
    }
    // Nothing pending in an outbox only this process writes: the next enqueue wakes us.
    if (this.#outbox.processLocal === true && due === undefined) return;
    const delay =
      due === undefined ? this.#pollMs : Math.min(Math.max(due - Date.now(), 0), this.#pollMs * 60);
    this.#timer = setTimeout(this.wake, Math.max(delay, 1));
    this.#timer.unref?.(); // workerd: timers without unref
  }

  async #settle([flight, outcome, settlement]: Completion): Promise<void> {
    const attempt: PushAttempt = {
      atMs: flight.started,
      durationMs: Date.now() - flight.started,
      ok: settlement.outcome === 'delivered',
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
    await this.#outbox.settle(flight.delivery.id, flight.lease, attempt, settlement);
  }
}
