/**
 * The planner's push-notification webhook: a route on its own A2A server (the `routes` option),
 * where the test-runner posts the updates of the test runs the planner follows. Each
 * notification is checked (the token, and the signature against the JWKS the test-runner's
 * card names, for this webhook's URL) and then only wakes the follower of that sub-task: push
 * is at least once and unordered against GetTask, so the follower re-reads the task (the truth).
 */
import { randomBytes } from 'node:crypto';
import { createPushHandler, type PushHttpReply, type PushHttpRequest } from '../../client/push-receiver.js';
import type { StreamEvent } from '../../client/stream-events.js';

/** Where the planner's server answers notifications. */
export const PLANNER_WEBHOOK_PATH = '/planner/push-notifications';

/** Id of the push config the planner registers on each followed sub-task (replaced on resume). */
export const PLANNER_PUSH_CONFIG_ID = 'planner';

/** Sub-tasks followed at once; one more is refused (followed by polling instead). */
const MAX_WATCHES = 1000;
/** Notifications one follower holds unread; older ones are dropped (they only wake it). */
const MAX_PENDING = 256;
/** Sub-tasks whose notifications are held while their start is still being answered. */
const MAX_EARLY_TASKS = 64;

/** One followed sub-task: the notifications it received since it last looked. */
export class PushWatch {
  #pending: StreamEvent[] = [];
  #wake: (() => void) | undefined;
  /** Notifications received for this sub-task. */
  received = 0;

  constructor(
    readonly taskId: string,
    private readonly onClose: () => void,
  ) {}

  /** @internal Called by the webhook for each accepted notification. */
  notify(event: StreamEvent): void {
    this.received++;
    this.#pending.push(event);
    if (this.#pending.length > MAX_PENDING) this.#pending.shift();
    this.#wake?.();
  }

  /**
   * The notifications received since the last call: at once when there are some, else at the
   * next one, after `ms` (a safety re-read should a notification be lost), or on abort.
   */
  async next(ms: number, signal: AbortSignal): Promise<StreamEvent[]> {
    if (this.#pending.length === 0 && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.#wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    signal.throwIfAborted();
    return this.#pending.splice(0);
  }

  /** The notifications received since the last look, without waiting. */
  take(): StreamEvent[] {
    return this.#pending.splice(0);
  }

  close(): void {
    this.#wake?.();
    this.onClose();
  }
}

/** The webhook of one planner process. */
export class PlannerWebhook {
  /** The secret every notification must carry (`X-A2A-Notification-Token`); new per process. */
  readonly token = randomBytes(24).toString('base64url');
  /** Notifications accepted since start (all sub-tasks). */
  received = 0;
  #url: string | undefined;
  #jwks: string | undefined;
  #handler: ((req: PushHttpRequest) => Promise<PushHttpReply>) | undefined;
  readonly #watches = new Map<string, PushWatch>();
  /** Starts in flight whose sub-task id is not known yet (see {@link expect}). */
  #expecting = 0;
  /** Notifications of sub-tasks not watched yet, held while a start is in flight. */
  readonly #early = new Map<string, StreamEvent[]>();

  /** The route to give createA2AServer (`routes`). */
  readonly routes: Readonly<Record<string, (req: PushHttpRequest) => Promise<PushHttpReply>>> = {
    [PLANNER_WEBHOOK_PATH]: (req) => this.#handle(req),
  };

  /** Tells the webhook the base URL its server listens at (known after listen). */
  listening(baseUrl: string): void {
    this.#url = `${baseUrl.replace(/\/+$/, '')}${PLANNER_WEBHOOK_PATH}`;
    this.#handler = undefined;
  }

  /** The webhook's URL, once its server listens. */
  get url(): string | undefined {
    return this.#url;
  }

  /**
   * Starts routing `taskId`'s notifications to a watch. `jwksUrl`: the sender's push JWKS
   * (from its card); without one only the token is checked. Undefined when too many sub-tasks
   * are followed already.
   */
  watch(taskId: string, jwksUrl: string | undefined): PushWatch | undefined {
    if (this.#watches.size >= MAX_WATCHES && !this.#watches.has(taskId)) return undefined;
    this.#useJwks(jwksUrl);
    const watch: PushWatch = new PushWatch(taskId, () => {
      if (this.#watches.get(taskId) === watch) this.#watches.delete(taskId);
    });
    this.#watches.set(taskId, watch);
    for (const event of this.#early.get(taskId) ?? []) watch.notify(event);
    this.#early.delete(taskId);
    return watch;
  }

  /**
   * A start whose SendMessage carries this webhook's config is in flight: its first
   * notifications may arrive before its answer names the sub-task, so until `done()` they are
   * accepted and held (bounded) for the watch made from that answer.
   */
  expect(jwksUrl: string | undefined): { done(): void } {
    this.#useJwks(jwksUrl);
    this.#expecting++;
    let done = false;
    return {
      done: () => {
        if (done) return;
        done = true;
        if (--this.#expecting === 0) this.#early.clear();
      },
    };
  }

  #useJwks(jwksUrl: string | undefined): void {
    if (jwksUrl === this.#jwks) return;
    this.#jwks = jwksUrl;
    this.#handler = undefined;
  }

  #deliver(event: StreamEvent, taskId: string): void {
    this.received++;
    const watch = this.#watches.get(taskId);
    if (watch) return watch.notify(event);
    if (this.#expecting === 0) return;
    let held = this.#early.get(taskId);
    if (!held) {
      if (this.#early.size >= MAX_EARLY_TASKS) return;
      this.#early.set(taskId, (held = []));
    }
    if (held.length < MAX_PENDING) held.push(event);
  }

  #handle(req: PushHttpRequest): Promise<PushHttpReply> {
    const url = this.#url;
    if (!url) return Promise.resolve({ status: 503, headers: {}, body: '{}' });
    this.#handler ??= createPushHandler({
      token: this.token,
      ...(this.#jwks ? { signature: { jwks: this.#jwks, audience: url } } : {}),
      expectTask: (taskId) => this.#watches.has(taskId) || this.#expecting > 0,
      onEvent: (event, taskId) => this.#deliver(event, taskId),
    });
    return this.#handler(req);
  }
}
