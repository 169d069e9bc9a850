/**
 * Server interceptors: an onion `(next) => (call) => ...` around every operation, whatever the
 * binding (logging, metrics, tracing, rate limits, authorization). They see the validated
 * request and the call context, and may refuse the call by throwing an A2AError, replace the
 * result, or observe it. The handler itself knows nothing of them.
 */
import type { A2AMethod } from '../../model/operations.js';
import { OPERATIONS } from '../../model/operations.js';
import type { ServerCallContext } from '../context.js';
import type { RequestHandler } from './request-handler.js';

/** One operation call as it passes through the interceptors. */
export interface OperationCall {
  /** The operation, by its v1.0 name (`SendMessage`, `GetTask`, ...). */
  readonly method: A2AMethod;
  /** The validated request: the operation's request type. */
  readonly request: unknown;
  /** Who is calling, for which tenant, over which binding. */
  readonly ctx: ServerCallContext;
  /** True for SendStreamingMessage and SubscribeToTask: the result is an `AsyncIterable<StreamResponse>`. */
  readonly streaming: boolean;
}

/**
 * Runs a call: the next interceptor, or the handler. Resolves to the operation's response or,
 * when `call.streaming`, to its event iterable (which the interceptor may wrap to watch events).
 */
export type OperationNext = (call: OperationCall) => Promise<unknown>;

/**
 * Wraps every operation. `(next) => next` passes through; the first interceptor of a list is
 * the outermost.
 * @example
 * const timing: ServerInterceptor = (next) => async (call) => {
 *   const started = performance.now();
 *   try { return await next(call); } finally { log(call.method, performance.now() - started); }
 * };
 */
export type ServerInterceptor = (next: OperationNext) => OperationNext;

/** The handler method behind each operation. */
const HANDLER_METHOD = {
  SendMessage: 'sendMessage',
  SendStreamingMessage: 'sendStreamingMessage',
  GetTask: 'getTask',
  ListTasks: 'listTasks',
  CancelTask: 'cancelTask',
  SubscribeToTask: 'subscribeToTask',
  CreateTaskPushNotificationConfig: 'createTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfigs',
  DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
  GetExtendedAgentCard: 'getExtendedAgentCard',
} as const satisfies Record<A2AMethod, keyof RequestHandler>;

type AnyOperation = (request: unknown, ctx: ServerCallContext) => Promise<unknown>;

/**
 * `handler` with `interceptors` around each of its eleven operations (the card getter passes
 * through). With no interceptors the handler itself is returned: no cost on the hot path.
 */
export function interceptHandler(
  handler: RequestHandler,
  interceptors: readonly ServerInterceptor[],
): RequestHandler {
  if (interceptors.length === 0) return handler;
  const innermost: OperationNext = (call) =>
    (handler[HANDLER_METHOD[call.method]] as AnyOperation).call(handler, call.request, call.ctx);
  let chain = innermost;
  for (let i = interceptors.length - 1; i >= 0; i--) chain = interceptors[i]!(chain);
  const run = chain;
  // The card and the handler's own members (close, taskManager) pass through untouched.
  const own = handler as RequestHandler & { close?: () => Promise<void>; taskManager?: unknown };
  const wrapped: Record<string, unknown> = {
    agentCard: () => handler.agentCard(),
    close: () => own.close?.() ?? Promise.resolve(),
    taskManager: own.taskManager,
  };
  for (const method of Object.keys(HANDLER_METHOD) as A2AMethod[]) {
    const streaming = OPERATIONS[method].streaming;
    wrapped[HANDLER_METHOD[method]] = (request: unknown, ctx: ServerCallContext) =>
      run({ method, request, ctx, streaming });
  }
  return wrapped as unknown as RequestHandler;
}
