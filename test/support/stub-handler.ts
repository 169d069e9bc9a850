/**
 * A small RequestHandler standing in for the core in binding-level tests of the JSON-RPC and
 * REST bindings. Messages steer it by their text:
 * - `message`: a direct Message reply;
 * - `hold` (streaming): the Task, then nothing until the client goes away or `release()`;
 * - `boom` (streaming): the Task, then an UnsupportedOperationError after the stream started;
 * - `crash`: a non-protocol error (becomes InternalError);
 * - `wait` (SendMessage): answers only after `release()`;
 * - anything else: a completed task with one artifact echoing the text.
 */
import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/errors/a2a-error.js';
import type * as model from '../../src/model/schema.js';
import type { ServerCallContext } from '../../src/server/context.js';
import type { RequestHandler } from '../../src/server/request-handler.js';
import type { AgentExecutor } from '../../src/server/executor.js';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../src/server/http.js';

const NOW = '2026-01-01T00:00:00.000Z';

export class StubHandler implements RequestHandler {
  readonly tasks = new Map<string, model.Task>();
  readonly configs = new Map<string, model.TaskPushNotificationConfig>();
  /** Every call: its operation, request and context. */
  readonly calls: { op: string; request: unknown; ctx: ServerCallContext }[] = [];
  /** How many stream iterators were stopped early (client went away or server closed). */
  returned = 0;
  private releaseHeld: (() => void)[] = [];
  private seq = 0;

  constructor(private readonly card: () => model.AgentCard) {}

  agentCard(): model.AgentCard {
    return this.card();
  }

  /** Ends every `hold` stream normally. */
  release(): void {
    for (const r of this.releaseHeld.splice(0)) r();
  }

  private record(op: string, request: unknown, ctx: ServerCallContext): void {
    this.calls.push({ op, request, ctx });
    if (ctx.requestedExtensions.includes('https://example.test/ext/echo')) {
      ctx.activatedExtensions.add('https://example.test/ext/echo');
    }
  }

  private newTask(request: model.SendMessageRequest, state: model.Task['status']['state']): model.Task {
    const id = `task-${++this.seq}`;
    const contextId = request.message.contextId ?? `ctx-${this.seq}`;
    const text = textOf(request.message);
    const task: model.Task = {
      id,
      contextId,
      status: { state, timestamp: NOW },
      artifacts: [{ artifactId: 'a1', parts: [{ text }] }],
      history: [{ ...request.message, taskId: id, contextId }],
    };
    this.tasks.set(id, task);
    return task;
  }

  async sendMessage(
    request: model.SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<model.SendMessageResponse> {
    this.record('sendMessage', request, ctx);
    const text = textOf(request.message);
    if (text === 'crash') throw new Error('stub crash');
    if (text === 'wait') await new Promise<void>((r) => this.releaseHeld.push(r));
    if (text === 'message') {
      return {
        message: { messageId: 'reply-1', contextId: 'ctx-m', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] },
      };
    }
    if (request.message.taskId && !this.tasks.has(request.message.taskId)) {
      throw new TaskNotFoundError(undefined, { metadata: { taskId: request.message.taskId } });
    }
    return { task: this.newTask(request, 'TASK_STATE_COMPLETED') };
  }

  async sendStreamingMessage(
    request: model.SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<model.StreamResponse>> {
    this.record('sendStreamingMessage', request, ctx);
    const text = textOf(request.message);
    if (text === 'message') {
      return iterate(this, [
        {
          message: { messageId: 'reply-1', contextId: 'ctx-m', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] },
        },
      ]);
    }
    const task = this.newTask(request, 'TASK_STATE_SUBMITTED');
    const taskId = task.id;
    const contextId = task.contextId as string;
    if (text === 'hold') return iterate(this, [{ task }], new Promise<void>((r) => this.releaseHeld.push(r)));
    if (text === 'boom') return iterate(this, [{ task }], undefined, new UnsupportedOperationError('boom'));
    return iterate(this, [
      { task },
      { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', timestamp: NOW } } },
      {
        artifactUpdate: {
          taskId,
          contextId,
          artifact: { artifactId: 'a1', parts: [{ text }] },
          lastChunk: true,
        },
      },
      { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_COMPLETED', timestamp: NOW } } },
    ]);
  }

  async getTask(request: model.GetTaskRequest, ctx: ServerCallContext): Promise<model.Task> {
    this.record('getTask', request, ctx);
    return this.find(request.id);
  }

  private find(id: string): model.Task {
    const task = this.tasks.get(id);
    if (!task) throw new TaskNotFoundError(undefined, { metadata: { taskId: id } });
    return task;
  }

  async listTasks(request: model.ListTasksRequest, ctx: ServerCallContext): Promise<model.ListTasksResponse> {
    this.record('listTasks', request, ctx);
    if (request.pageToken === 'bad') {
      throw new InvalidParamsError('Invalid parameters: pageToken: not a token from this server', {
        violations: [{ path: 'pageToken', description: 'not a token from this server' }],
      });
    }
    const tasks = [...this.tasks.values()].map(({ artifacts: _a, ...rest }) => rest);
    return { tasks, nextPageToken: '', pageSize: request.pageSize ?? 50, totalSize: tasks.length };
  }

  async cancelTask(request: model.CancelTaskRequest, ctx: ServerCallContext): Promise<model.Task> {
    this.record('cancelTask', request, ctx);
    const task = this.find(request.id);
    task.status = { state: 'TASK_STATE_CANCELED', timestamp: NOW };
    return task;
  }

  async subscribeToTask(
    request: model.SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<model.StreamResponse>> {
    this.record('subscribeToTask', request, ctx);
    const task = this.find(request.id);
    return iterate(this, [{ task }]);
  }

  async createTaskPushNotificationConfig(
    request: model.TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<model.TaskPushNotificationConfig> {
    this.record('createTaskPushNotificationConfig', request, ctx);
    this.find(request.taskId ?? '');
    const config = { ...request, id: request.id || `cfg-${++this.seq}` };
    this.configs.set(`${config.taskId}/${config.id}`, config);
    return config;
  }

  async getTaskPushNotificationConfig(
    request: model.GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<model.TaskPushNotificationConfig> {
    this.record('getTaskPushNotificationConfig', request, ctx);
    const config = this.configs.get(`${request.taskId}/${request.id}`);
    if (!config) throw new TaskNotFoundError(undefined, { metadata: { taskId: request.taskId } });
    return config;
  }

  async listTaskPushNotificationConfigs(
    request: model.ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<model.ListTaskPushNotificationConfigsResponse> {
    this.record('listTaskPushNotificationConfigs', request, ctx);
    this.find(request.taskId);
    const configs = [...this.configs.values()].filter((c) => c.taskId === request.taskId);
    return { configs, nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(
    request: model.DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<model.Empty> {
    this.record('deleteTaskPushNotificationConfig', request, ctx);
    this.configs.delete(`${request.taskId}/${request.id}`);
    return {};
  }

  async getExtendedAgentCard(
    request: model.GetExtendedAgentCardRequest,
    ctx: ServerCallContext,
  ): Promise<model.AgentCard> {
    this.record('getExtendedAgentCard', request, ctx);
    return { ...this.card(), name: 'stub (extended)' };
  }
}

function textOf(message: model.Message): string {
  const part = message.parts[0];
  return part && 'text' in part && typeof part.text === 'string' ? part.text : '';
}

/** Events, then optionally a wait (ended by `return()`), then optionally an error. */
function iterate(
  stub: StubHandler,
  events: model.StreamResponse[],
  hold?: Promise<void>,
  error?: Error,
): AsyncIterable<model.StreamResponse> {
  let i = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<model.StreamResponse>> {
        if (stopped) return { done: true, value: undefined };
        if (i < events.length) return { done: false, value: events[i++] as model.StreamResponse };
        if (hold) {
          await Promise.race([hold, new Promise<void>((r) => (wake = r))]);
          hold = undefined;
          if (stopped) return { done: true, value: undefined };
        }
        if (error) {
          const e = error;
          error = undefined;
          throw e;
        }
        return { done: true, value: undefined };
      },
      async return(): Promise<IteratorResult<model.StreamResponse>> {
        if (!stopped) {
          stopped = true;
          stub.returned++;
          wake?.();
        }
        return { done: true, value: undefined };
      },
    }),
  };
}

/** A card config for tests. */
export const TEST_CARD = {
  name: 'stub',
  description: 'Binding test stub',
  version: '1.0.0',
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['test'] }],
};

/**
 * Starts a server on 127.0.0.1 (port 0) around a {@link StubHandler}; stopped by the caller's
 * `after`/`t.after` with `close()`.
 */
export async function startStubServer(options: Partial<A2AServerOptions> = {}): Promise<{
  server: A2AServer;
  stub: StubHandler;
  url: string;
  close: () => Promise<void>;
}> {
  let stub: StubHandler | undefined;
  const server = createA2AServer({
    agent: { execute: async () => undefined },
    card: TEST_CARD,
    extendedCard: { ...TEST_CARD, name: 'stub (extended)' },
    keepAliveMs: 60_000,
    onError: () => undefined,
    ...options,
    handler: (card) => (stub = new StubHandler(card)),
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, stub: stub as StubHandler, url, close: () => server.close() };
}

/**
 * A real AgentExecutor for end-to-end tests with the DefaultRequestHandler. By text:
 * `input` asks for input; `hold` works until canceled; `reply` answers with a Message;
 * anything else completes with an artifact echoing the text, after one progress update.
 */
export const testExecutor: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'reply') return task.reply('direct reply');
    if (ctx.text === 'input') return task.requireInput('which one?');
    await task.working('working on it');
    if (ctx.text === 'hold') {
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return;
    }
    await task.artifact({ name: 'echo', text: ctx.text });
    await task.complete();
  },
};
