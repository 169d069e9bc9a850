/** The options of the DefaultRequestHandler. */
import type { GenerationOptions } from '../generation.js';
import type { RecoveryOptions } from '../recovery.js';
import type { RetentionOptions } from '../retention.js';
import type { AgentCard } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import type { EventBus } from '../event-bus/event-bus.js';
import type { AgentExecutor } from '../executor.js';
import type { PushConfigStore } from '../stores/push-config-store.js';
import type { TaskStore } from '../stores/task-store.js';

/** Options of {@link DefaultRequestHandler}. */
export interface DefaultRequestHandlerOptions {
  /** The agent. */
  executor: AgentExecutor;
  /** The public card; capabilities (streaming, pushNotifications, extendedAgentCard) are read from it. */
  card: () => AgentCard;
  /** The extended card, or a function giving it per caller. */
  extendedCard?: AgentCard | ((ctx: ServerCallContext) => AgentCard | Promise<AgentCard>);
  /**
   * Refuse the extended card to the anonymous principal (UnauthenticatedError, issue 11.4).
   * Turn on whenever authentication is configured. @default false
   */
  extendedCardRequiresAuthentication?: boolean;
  /** @default new MemoryTaskStore() */
  taskStore?: TaskStore;
  /** @default new MemoryPushConfigStore() */
  pushConfigStore?: PushConfigStore;
  /** @default new InProcessEventBus() */
  eventBus?: EventBus;
  /**
   * Key that signs ListTasks page tokens. Give every replica the same one.
   * @default the store's own secret when it keeps one (`getOrCreateSecret`: SQLite, PostgreSQL,
   * memory), else 32 random bytes per handler (tokens do not survive a restart)
   */
  pageTokenSecret?: string | Uint8Array;
  /**
   * How long a task may wait in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED` for
   * the client, counted from its `status.timestamp`. A new client message on the task ends the
   * wait; a new interrupted status starts it again. When it runs out the task becomes
   * `TASK_STATE_FAILED` with an agent status message saying why, open streams receive that
   * update and close, a still-running `execute()` has its `signal` aborted, and later
   * messages to the task are refused like for any terminal task. `0` or `Infinity` waits forever.
   * @default 3600000 (one hour)
   * @example interruptedTimeoutMs: 15 * 60_000
   */
  interruptedTimeoutMs?: number;
  /**
   * Most parts (history message parts plus artifact parts) one task may hold. An agent event
   * that would pass it rejects with InvalidAgentResponseError and changes nothing.
   * @default 200000
   */
  maxTaskParts?: number;
  /** Most JSON characters (about bytes) of history and artifacts one task may hold. @default 67108864 (64 MiB) */
  maxTaskBytes?: number;
  /**
   * The idempotency window of SendMessage, counted from a messageId's first use: within it a
   * repeat of the same message from the same caller returns the first result (the agent runs
   * once), and a repeat with different content is refused with InvalidParamsError. After it
   * the messageId is free again. `0` turns de-duplication off; `Infinity` never expires (the
   * store's own caps still bound what it keeps).
   * @default 86400000 (24 hours)
   */
  idempotencyTtlMs?: number;
  /**
   * Most events one stream (SendStreamingMessage, SubscribeToTask) holds unread. A client
   * that falls further behind gets one error event (UnavailableError: resubscribe and
   * reconcile with GetTask) and its stream ends; the agent is never slowed. @default 10000
   */
  maxStreamQueueEvents?: number;
  /** Most bytes (approximate) one stream holds unread; enforced like `maxStreamQueueEvents`. @default 16777216 (16 MiB) */
  maxStreamQueueBytes?: number;
  /**
   * Crash recovery with execution leases and a heartbeat, on stores that keep leases (SQLite,
   * PostgreSQL): tasks left SUBMITTED or WORKING by a process that died are failed by the next
   * start or another replica. `false` turns it off.
   * @default on, with a 30 s lease
   */
  recovery?: RecoveryOptions | false;
  /**
   * The retention job, run at start and every `intervalMs` (10 minutes) on stores that
   * support it (SQLite, PostgreSQL, memory): deletes idempotency records older than the
   * idempotency window, and terminal tasks older than `terminalTasksMaxAgeMs` when it is set.
   * `false` turns it off (run `purgeIdempotencyBefore` / `purgeTerminalBefore` yourself).
   * @default on: idempotency records after 24 hours, terminal tasks kept
   */
  retention?: RetentionOptions | false;
  /**
   * Receives failures that are not protocol errors: an execution whose end (often the FAILED
   * of a failing store) could not be written. Such a task keeps its lease and is failed later.
   * @default console.error
   */
  onError?: (error: unknown) => void;
  /**
   * A2A 1.1 draft support (dev-1.1): task `generation`, long-polling GetTask
   * (`currentGeneration`), `ifGenerationMatch`, and exact stream resumption with
   * `Last-Event-ID`. Only calls that ask for it (`A2A-Version: 1.1`, or the extension
   * `https://a2a-kit.dev/extensions/generation/v1` in `A2A-Extensions`) see any of it; every
   * other call is served exactly as v1.0 (docs/protocol-decisions.md GEN-1).
   * @default off
   * @example generation: { longPollMaxMs: 10_000 }
   */
  generation?: GenerationOptions | boolean;
}
