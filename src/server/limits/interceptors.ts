/**
 * Per-principal limits as server interceptors (issue 11.7): a token bucket per caller on every
 * operation, caps on open streams and running executions per caller, and a cap on push configs
 * per task (on by default). All keyed by {@link principalKey} (tenant + principal id).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentExecutor } from '../../core/executor.js';
import type { OperationCall, ServerInterceptor } from '../../core/handler/interceptor.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import { ResourceExhaustedError } from '../../errors/a2a-error.js';
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import { ConcurrencyLimiter } from './concurrency.js';
import { principalKey } from './key.js';
import { RateLimiter } from './rate-limit.js';

/** Per-caller limits (each off unless set). */
export interface PrincipalLimitOptions {
  /** Sustained operations per second per caller (token bucket); beyond: 429 with Retry-After. */
  ratePerSecond?: number;
  /** Bucket size: operations a caller may send at once. @default ratePerSecond */
  rateBurst?: number;
  /** Most open streams (SendStreamingMessage, SubscribeToTask) per caller. */
  maxStreamsPerPrincipal?: number;
  /** Most agent executions running at once for one caller (messages beyond are refused, 429). */
  maxRunningPerPrincipal?: number;
  /**
   * Most push configs one task may hold; creating one more is ResourceExhausted. Each event of
   * a task is POSTed to every config it holds, so without a bound one caller fans a task out to
   * as many webhooks as it likes. `false` lifts the bound. @default 10
   */
  maxPushConfigsPerTask?: number | false;
}

/** The default of {@link PrincipalLimitOptions.maxPushConfigsPerTask}. */
export const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK = 10;

const STREAMING = new Set(['SendStreamingMessage', 'SubscribeToTask']);
const SENDS = new Set(['SendMessage', 'SendStreamingMessage']);

/**
 * A slot held while a send is in flight and while the execution it started runs: the send
 * takes it, the execution (found through AsyncLocalStorage, as the handler starts it inside
 * the call) joins it, and it is freed when both are done.
 */
class SharedSlot {
  private holders = 1;
  constructor(private readonly free: () => void) {}
  join(): () => void {
    this.holders++;
    return () => this.leave();
  }
  leave(): void {
    if (--this.holders === 0) this.free();
  }
}

/** The interceptors and executor wrapper for {@link PrincipalLimitOptions}. */
export interface PrincipalLimits {
  readonly interceptors: ServerInterceptor[];
  /** Wraps the agent so that its executions count against `maxRunningPerPrincipal`. */
  wrapExecutor(executor: AgentExecutor): AgentExecutor;
}

/** Builds the limit interceptors; `handler()` is the inner handler (to count push configs). */
export function principalLimits(
  options: PrincipalLimitOptions,
  handler: () => RequestHandler,
): PrincipalLimits {
  const interceptors: ServerInterceptor[] = [];
  const running = new AsyncLocalStorage<SharedSlot>();
  if (options.ratePerSecond !== undefined) {
    const rate = new RateLimiter({
      ratePerSecond: options.ratePerSecond,
      ...(options.rateBurst !== undefined ? { burst: options.rateBurst } : {}),
    });
    interceptors.push((next) => (call) => {
      rate.consume(principalKey(call.ctx));
      return next(call);
    });
  }
  if (options.maxStreamsPerPrincipal !== undefined) {
    const streams = new ConcurrencyLimiter({ maxPerKey: options.maxStreamsPerPrincipal, what: 'streams' });
    // The async part only for the calls it limits: the others go straight on.
    interceptors.push((next) => {
      const limited = async (call: OperationCall): Promise<unknown> => {
        const release = streams.acquire(principalKey(call.ctx));
        try {
          return releasingOnEnd((await next(call)) as AsyncIterable<unknown>, release);
        } catch (error) {
          release();
          throw error;
        }
      };
      return (call) => (STREAMING.has(call.method) ? limited(call) : next(call));
    });
  }
  if (options.maxRunningPerPrincipal !== undefined) {
    const executions = new ConcurrencyLimiter({
      maxPerKey: options.maxRunningPerPrincipal,
      what: 'running executions',
    });
    interceptors.push((next) => {
      const limited = async (call: OperationCall): Promise<unknown> => {
        const slot = new SharedSlot(executions.acquire(principalKey(call.ctx)));
        try {
          const result = await running.run(slot, () => next(call));
          if (!call.streaming) {
            slot.leave();
            return result;
          }
          return releasingOnEnd(result as AsyncIterable<unknown>, () => slot.leave());
        } catch (error) {
          slot.leave();
          throw error;
        }
      };
      return (call) => (SENDS.has(call.method) ? limited(call) : next(call));
    });
  }
  const maxConfigs = options.maxPushConfigsPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;
  if (maxConfigs !== false) interceptors.push(pushConfigCap(maxConfigs, handler));
  return {
    interceptors,
    wrapExecutor(executor) {
      if (options.maxRunningPerPrincipal === undefined) return executor;
      return {
        ...executor,
        execute: async (ctx, task) => {
          const leave = running.getStore()?.join();
          try {
            return await executor.execute(ctx, task);
          } finally {
            leave?.();
          }
        },
        ...(executor.cancel ? { cancel: executor.cancel.bind(executor) } : {}),
      };
    },
  };
}

/**
 * Refuses CreateTaskPushNotificationConfig once the task holds `max` configs (replacing one by
 * its id is allowed). Creates for one task run one at a time, so concurrent ones cannot pass it.
 */
function pushConfigCap(max: number, handler: () => RequestHandler): ServerInterceptor {
  // Counted with one ListTaskPushNotificationConfigs page (at most 100).
  if (!Number.isInteger(max) || max < 1 || max > 99) {
    throw new RangeError('limits.maxPushConfigsPerTask must be an integer from 1 to 99');
  }
  const queues = new Map<string, Promise<unknown>>();
  return (next) => (call: OperationCall) => {
    if (call.method !== 'CreateTaskPushNotificationConfig') return next(call);
    const request = call.request as TaskPushNotificationConfig;
    const key = `${principalKey(call.ctx)}\u0000${request.taskId}`;
    const run = async (): Promise<unknown> => {
      const page = await handler().listTaskPushNotificationConfigs(
        {
          taskId: request.taskId ?? '',
          pageSize: max + 1,
          ...(request.tenant ? { tenant: request.tenant } : {}),
        },
        call.ctx,
      );
      const configs = page.configs ?? [];
      const replaces =
        request.id !== undefined && request.id !== '' && configs.some((c) => c.id === request.id);
      if (!replaces && configs.length >= max) {
        throw new ResourceExhaustedError(
          `the task already has ${max} push notification configs (the limit); delete one first`,
        );
      }
      return next(call);
    };
    const previous = queues.get(key) ?? Promise.resolve();
    const result = previous.then(run, run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return result;
  };
}

/** `events`, calling `release` once when iteration ends, fails or is abandoned (`return`). */
function releasingOnEnd<T>(events: AsyncIterable<T>, release: () => void): AsyncIterable<T> {
  let released = false;
  const done = (): void => {
    if (released) return;
    released = true;
    release();
  };
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const inner = events[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const step = await inner.next();
            if (step.done) done();
            return step;
          } catch (error) {
            done();
            throw error;
          }
        },
        async return(value?: unknown) {
          done();
          return (await inner.return?.(value)) ?? { done: true, value: undefined as T };
        },
        async throw(error?: unknown) {
          done();
          if (inner.throw) return inner.throw(error);
          throw error;
        },
      };
    },
  };
}
