/**
 * A small in-memory RequestHandler for the gRPC binding tests: enough behaviour to exercise
 * every RPC, errors, streams and cancellation without the real core.
 */
import {
  ExtendedAgentCardNotConfiguredError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '../../src/errors/a2a-error.js';
import type * as model from '../../src/model/schema.js';
import type { ServerCallContext } from '../../src/server/context.js';
import type { RequestHandler } from '../../src/server/request-handler.js';

export const EXT_OPTIONAL = 'https://example.test/ext/optional/v1';
export const EXT_REQUIRED = 'https://example.test/ext/required/v1';

export interface StubOptions {
  /** Declare EXT_REQUIRED as required on the card. */
  requireExtension?: boolean;
  extendedCard?: model.AgentCard;
}

/** A one-shot gate a test opens to let a stream continue. */
export class Gate {
  private resolveFn!: () => void;
  readonly promise = new Promise<void>((r) => (this.resolveFn = r));
  open(): void {
    this.resolveFn();
  }
}

export class StubHandler implements RequestHandler {
  readonly tasks = new Map<string, model.Task>();
  readonly configs = new Map<string, model.TaskPushNotificationConfig>();
  readonly contexts: ServerCallContext[] = [];
  /** Number of stream iterators whose return() was called (client went away). */
  returned = 0;
  /** Opened by tests to release `hold` streams. */
  gate = new Gate();
  private seq = 0;

  constructor(private readonly options: StubOptions = {}) {}

  agentCard(): model.AgentCard {
    return {
      name: 'stub',
      description: 'gRPC test stub',
      version: '1.0.0',
      supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      capabilities: {
        streaming: true,
        extensions: [
          { uri: EXT_OPTIONAL },
          ...(this.options.requireExtension ? [{ uri: EXT_REQUIRED, required: true }] : []),
        ],
      },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
  }

  private record(ctx: ServerCallContext): void {
    this.contexts.push(ctx);
    if (ctx.requestedExtensions.includes(EXT_OPTIONAL)) ctx.activatedExtensions.add(EXT_OPTIONAL);
  }

  private find(id: string): model.Task {
    const task = this.tasks.get(id);
    if (!task) throw new TaskNotFoundError(`Task ${id} not found`, { metadata: { taskId: id } });
    return task;
  }

  private text(request: model.SendMessageRequest): string {
    const part = request.message.parts[0];
    return part && 'text' in part && typeof part.text === 'string' ? part.text : '';
  }

  private newTask(request: model.SendMessageRequest, state: model.TaskStatus['state']): model.Task {
    const id = `task-${++this.seq}`;
    const contextId = request.message.contextId || `ctx-${this.seq}`;
    const task: model.Task = {
      id,
      contextId,
      status: { state, timestamp: '2026-01-01T00:00:00Z' },
      history: [{ ...request.message, taskId: id, contextId }],
      metadata: { tenant: request.tenant ?? '' },
    };
    this.tasks.set(id, task);
    return task;
  }

  async sendMessage(
    request: model.SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<model.SendMessageResponse> {
    this.record(ctx);
    const text = this.text(request);
    if (text === 'message') {
      return {
        message: { messageId: 'reply-1', role: 'ROLE_AGENT', parts: [{ text: 'direct reply' }] },
      };
    }
    if (text === 'boom') throw new Error('secret internal detail');
    const task = this.newTask(request, text === 'wait' ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED');
    if (text !== 'wait') {
      task.artifacts = [
        { artifactId: 'a-1', name: 'echo', parts: [{ text }, { data: { n: 1, list: [true, null] } }] },
      ];
    }
    return { task };
  }

  async sendStreamingMessage(
    request: model.SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<model.StreamResponse>> {
    this.record(ctx);
    const text = this.text(request);
    const task = this.newTask(request, 'TASK_STATE_SUBMITTED');
    const count = /^stream:(\d+)$/.exec(text) ? Number(text.slice(7)) : 3;
    return this.events(task, count, text === 'hold', text === 'fail-midway');
  }

  private events(
    task: model.Task,
    count: number,
    hold: boolean,
    failMidway: boolean,
  ): AsyncIterable<model.StreamResponse> {
    const onReturn = (): void => {
      this.returned++;
    };
    const gate = this.gate;
    const { id: taskId, contextId } = task;
    const ctxId = contextId ?? '';
    let i = -1;
    let done = false;
    const iterator: AsyncIterator<model.StreamResponse> = {
      async next() {
        if (done) return { done: true, value: undefined };
        i++;
        if (i === 0) return { done: false, value: { task: structuredClone(task) } };
        if (hold && i === 1) {
          await gate.promise;
          if (done) return { done: true, value: undefined };
        }
        if (failMidway && i === 2)
          throw new TaskNotCancelableError('failed midway', { metadata: { taskId } });
        if (i <= count) {
          return {
            done: false,
            value: {
              artifactUpdate: {
                taskId,
                contextId: ctxId,
                artifact: { artifactId: 'a-1', parts: [{ text: `chunk ${i}` }] },
                append: i > 1,
                lastChunk: i === count,
              },
            },
          };
        }
        if (i === count + 1) {
          task.status = { state: 'TASK_STATE_COMPLETED' };
          return {
            done: false,
            value: { statusUpdate: { taskId, contextId: ctxId, status: { state: 'TASK_STATE_COMPLETED' } } },
          };
        }
        done = true;
        return { done: true, value: undefined };
      },
      async return() {
        done = true;
        onReturn();
        gate.open();
        return { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  async getTask(request: model.GetTaskRequest, ctx: ServerCallContext): Promise<model.Task> {
    this.record(ctx);
    return this.find(request.id);
  }

  async listTasks(request: model.ListTasksRequest, ctx: ServerCallContext): Promise<model.ListTasksResponse> {
    this.record(ctx);
    const tasks = [...this.tasks.values()].filter(
      (t) => !request.contextId || t.contextId === request.contextId,
    );
    return { tasks, nextPageToken: '', pageSize: request.pageSize ?? 50, totalSize: tasks.length };
  }

  async cancelTask(request: model.CancelTaskRequest, ctx: ServerCallContext): Promise<model.Task> {
    this.record(ctx);
    const task = this.find(request.id);
    if (task.status.state === 'TASK_STATE_COMPLETED') {
      throw new TaskNotCancelableError(`Task ${task.id} is completed`, { metadata: { taskId: task.id } });
    }
    task.status = { state: 'TASK_STATE_CANCELED' };
    return task;
  }

  async subscribeToTask(
    request: model.SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<model.StreamResponse>> {
    this.record(ctx);
    const task = this.find(request.id);
    return this.events(task, 1, false, false);
  }

  async createTaskPushNotificationConfig(
    request: model.TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<model.TaskPushNotificationConfig> {
    this.record(ctx);
    const taskId = request.taskId ?? '';
    this.find(taskId);
    const config = { ...request, id: request.id || `cfg-${++this.seq}` };
    this.configs.set(`${taskId}/${config.id}`, config);
    return config;
  }

  async getTaskPushNotificationConfig(
    request: model.GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<model.TaskPushNotificationConfig> {
    this.record(ctx);
    this.find(request.taskId);
    const config = this.configs.get(`${request.taskId}/${request.id}`);
    if (!config) throw new TaskNotFoundError(`No config ${request.id}`);
    return config;
  }

  async listTaskPushNotificationConfigs(
    request: model.ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<model.ListTaskPushNotificationConfigsResponse> {
    this.record(ctx);
    this.find(request.taskId);
    return { configs: [...this.configs.values()].filter((c) => c.taskId === request.taskId) };
  }

  async deleteTaskPushNotificationConfig(
    request: model.DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<model.Empty> {
    this.record(ctx);
    this.find(request.taskId);
    this.configs.delete(`${request.taskId}/${request.id}`);
    return {};
  }

  async getExtendedAgentCard(
    _request: model.GetExtendedAgentCardRequest,
    ctx: ServerCallContext,
  ): Promise<model.AgentCard> {
    this.record(ctx);
    if (!this.options.extendedCard) throw new ExtendedAgentCardNotConfiguredError();
    return this.options.extendedCard;
  }
}
