/**
 * What the logging, tracing and metrics interceptors read from an operation call: its binding,
 * the task it concerns and how it ended. Shared so the three agree.
 */
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../model/schema.js';
import type { OperationCall } from '../../core/handler/interceptor.js';
import type { ServerCallContext } from '../../core/context.js';

/** The binding that carried `ctx`'s request (`jsonrpc`, `rest`, `grpc`), when the binding says. */
export function bindingOf(ctx: ServerCallContext): string | undefined {
  // `binding` arrives on ServerCallContext with the server split; read defensively until then.
  const binding = (ctx as { binding?: unknown }).binding;
  return typeof binding === 'string' ? binding : undefined;
}

/** OpenTelemetry `rpc.system` for a binding. */
export function rpcSystemOf(binding: string | undefined): string | undefined {
  if (binding === undefined) return undefined;
  if (binding.startsWith('jsonrpc')) return 'jsonrpc';
  if (binding.startsWith('grpc')) return 'grpc';
  return 'http';
}

/** The task a call concerns and the conversation, as far as the request or result name them. */
export interface TaskFacts {
  taskId?: string;
  contextId?: string;
  /** The task's state after the call, or `message` for a direct reply. */
  status?: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Task and context ids named by `call.request`. */
export function requestFacts(call: OperationCall): TaskFacts {
  const facts: TaskFacts = {};
  const r = call.request as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object') return facts;
  const message = r.message as { taskId?: unknown; contextId?: unknown } | undefined;
  const taskId = message
    ? str(message.taskId)
    : (str(r.taskId) ?? (call.method === 'ListTasks' ? undefined : str(r.id)));
  const contextId = str(message ? message.contextId : r.contextId);
  if (taskId) facts.taskId = taskId;
  if (contextId) facts.contextId = contextId;
  return facts;
}

interface TaskLike {
  id?: unknown;
  taskId?: unknown;
  contextId?: unknown;
  status?: { state?: unknown };
}

/**
 * `facts` with what a unary result tells (task id, context id, state) added, as a new object
 * (fields set one by one: this runs for every logged or traced request).
 */
export function resultFacts(method: string, result: unknown, facts: TaskFacts): TaskFacts {
  if (!result || typeof result !== 'object') return facts;
  let task: TaskLike | undefined;
  if (method === 'SendMessage') {
    const r = result as { task?: TaskLike; message?: TaskLike };
    if (r.message) {
      const out: TaskFacts = {};
      if (facts.taskId) out.taskId = facts.taskId;
      const contextId = str(r.message.contextId) ?? facts.contextId;
      if (contextId) out.contextId = contextId;
      out.status = 'message';
      return out;
    }
    task = r.task;
  } else if (method === 'GetTask' || method === 'CancelTask') {
    task = result as TaskLike;
  }
  if (!task) return facts;
  const out: TaskFacts = {};
  const taskId = str(task.id) ?? facts.taskId;
  const contextId = str(task.contextId) ?? facts.contextId;
  const status = str(task.status?.state) ?? facts.status;
  if (taskId) out.taskId = taskId;
  if (contextId) out.contextId = contextId;
  if (status) out.status = status;
  return out;
}

/** Adds what one stream event tells to `facts` (in place: called per event). */
export function eventFacts(event: StreamResponse, facts: TaskFacts): void {
  const e = event as {
    task?: TaskLike;
    message?: TaskLike;
    statusUpdate?: TaskLike;
    artifactUpdate?: TaskLike;
  };
  const item = e.task ?? e.statusUpdate ?? e.artifactUpdate ?? e.message;
  if (!item) return;
  const taskId = str(e.task ? item.id : item.taskId);
  if (taskId) facts.taskId = taskId;
  const contextId = str(item.contextId);
  if (contextId) facts.contextId = contextId;
  if (e.message) facts.status = 'message';
  else {
    const state = str(item.status?.state);
    if (state) facts.status = state;
  }
}

/** The kind of a stream event (`task`, `message`, `statusUpdate`, `artifactUpdate`). */
export function eventKind(event: StreamResponse): string {
  const e = event as Record<string, unknown>;
  if (e.statusUpdate) return 'statusUpdate';
  if (e.artifactUpdate) return 'artifactUpdate';
  if (e.task) return 'task';
  return 'message';
}

/** The outcome label of a failure: the A2A error code, or `Internal` for anything else. */
export function errorCodeOf(error: unknown): string {
  return error instanceof A2AError ? error.code : 'Internal';
}

/** `iterable` with `onEvent` called for each event and `onEnd` exactly once when it ends. */
export function watchStream(
  iterable: AsyncIterable<StreamResponse>,
  onEvent: (event: StreamResponse) => void,
  onEnd: (error: unknown, failed: boolean) => void,
): AsyncIterable<StreamResponse> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<StreamResponse> {
      const inner = iterable[Symbol.asyncIterator]();
      let ended = false;
      const end = (error: unknown, failed: boolean): void => {
        if (ended) return;
        ended = true;
        onEnd(error, failed);
      };
      return {
        async next(): Promise<IteratorResult<StreamResponse>> {
          try {
            const step = await inner.next();
            if (step.done) end(undefined, false);
            else onEvent(step.value);
            return step;
          } catch (error) {
            end(error, true);
            throw error;
          }
        },
        async return(value?: unknown): Promise<IteratorResult<StreamResponse>> {
          end(undefined, false);
          if (inner.return) return inner.return(value);
          return { done: true, value: undefined };
        },
        async throw(error?: unknown): Promise<IteratorResult<StreamResponse>> {
          end(error, true);
          if (inner.throw) return inner.throw(error);
          throw error;
        },
      };
    },
  };
}
