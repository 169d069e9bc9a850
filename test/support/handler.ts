/**
 * Builds a DefaultRequestHandler around an inline agent for tests, with a memory store the
 * test can inspect, plus small helpers for call contexts, messages and streams.
 */
import { randomUUID } from 'node:crypto';
import { A2AError } from '../../src/errors/a2a-error.js';
import { ERROR_CODES, type A2AErrorCode } from '../../src/errors/table.js';
import { Role } from '../../src/model/enums.js';
import type {
  AgentCapabilities,
  AgentCard,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
} from '../../src/model/schema.js';
import { createCallContext, type ServerCallContext } from '../../src/core/context.js';
import type {
  EventBus,
  TaskEventListener,
  TaskEvent,
  TaskTopic,
} from '../../src/core/event-bus/event-bus.js';
import { InProcessEventBus } from '../../src/core/event-bus/in-process.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../src/core/executor.js';
import { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';
import type { DefaultRequestHandlerOptions } from '../../src/core/handler/options.js';
import { MemoryPushConfigStore } from '../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import type { StoredTask, TaskScope } from '../../src/core/stores/task-store.js';

/** A minimal valid card with the given capabilities (streaming on by default). */
export function testCard(capabilities: AgentCapabilities = { streaming: true }): AgentCard {
  return {
    name: 'test agent',
    description: 'an agent for tests',
    version: '1.0.0',
    supportedInterfaces: [
      { url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'test', name: 'test', description: 'tests', tags: ['test'] }],
  };
}

export interface TestHandler {
  handler: DefaultRequestHandler;
  store: MemoryTaskStore;
  pushStore: MemoryPushConfigStore;
}

/** Options: the card's capabilities and any handler option. */
export type TestHandlerOptions = Partial<Omit<DefaultRequestHandlerOptions, 'executor' | 'card'>> & {
  capabilities?: AgentCapabilities;
};

/**
 * A handler whose agent is `agent` (an execute function or a full executor). The caller
 * closes it (`t.after(() => handler.close())`).
 */
export function createTestHandler(
  agent: ((ctx: RequestContext, events: TaskEventSink) => Promise<void>) | AgentExecutor,
  options: TestHandlerOptions = {},
): TestHandler {
  const store = options.taskStore instanceof MemoryTaskStore ? options.taskStore : new MemoryTaskStore();
  const pushStore =
    options.pushConfigStore instanceof MemoryPushConfigStore
      ? options.pushConfigStore
      : new MemoryPushConfigStore();
  const executor: AgentExecutor = typeof agent === 'function' ? { execute: agent } : agent;
  const card = testCard(options.capabilities ?? { streaming: true });
  const { capabilities: _c, ...rest } = options;
  const handler = new DefaultRequestHandler({
    ...rest,
    executor,
    card: () => card,
    taskStore: store,
    pushConfigStore: pushStore,
  });
  return { handler, store, pushStore };
}

/** A call context for `principal` in `tenant`. */
export function callAs(principal = 'alice', tenant = '', signal?: AbortSignal): ServerCallContext {
  return createCallContext({ principal: { id: principal }, tenant, ...(signal ? { signal } : {}) });
}

/** A user message with a fresh messageId. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  const parts: Part[] = [{ text }];
  return { messageId: randomUUID(), role: Role.USER, parts, ...extra };
}

/** Reads a stream to its end (at most `max` events). */
export async function collect<T = StreamResponse>(stream: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const event of stream) {
    out.push(event);
    if (out.length >= max) break;
  }
  return out;
}

/** A promise with its resolve function exposed (to let a test step an agent). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Kind of a stream event, for compact assertions: `task:STATE`, `status:STATE`, `artifact:id`, `message`. */
export function describeEvent(event: StreamResponse): string {
  if (event.task) return `task:${event.task.status.state.replace('TASK_STATE_', '')}`;
  if (event.statusUpdate) return `status:${event.statusUpdate.status.state.replace('TASK_STATE_', '')}`;
  if (event.artifactUpdate) return `artifact:${event.artifactUpdate.artifact.artifactId}`;
  return 'message';
}

// ---- agents, stores and buses for binding and hosting tests ----------------------------

/** A card config (the fields an author writes) for servers built with createA2AServer. */
export const TEST_CARD = {
  name: 'test agent',
  description: 'an agent for binding tests',
  version: '1.0.0',
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['test'] }],
};

/**
 * A real AgentExecutor for end-to-end tests. By text: `input` asks for input; `hold` works
 * until canceled; `reply` answers with a Message; anything else completes with an artifact
 * echoing the text, after one progress update.
 */
export const testExecutor: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'reply') return task.reply('direct reply');
    if (ctx.text === 'input') return task.requireInput('which one?');
    await task.working('working on it');
    if (ctx.text === 'hold') {
      await untilAborted(ctx.signal);
      return;
    }
    await task.artifact({ name: 'echo', text: ctx.text });
    await task.complete();
  },
};

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The data part every default {@link bindingTestAgent} artifact carries (Struct round trips). */
export const TEST_DATA = { n: 1, list: [true, null] };

/** A {@link bindingTestAgent}: an executor that also records what it was given. */
export interface BindingTestAgent extends AgentExecutor {
  /** The RequestContext of every execution, oldest first. */
  readonly contexts: RequestContext[];
}

/**
 * An agent for binding tests (user code: it only uses the author's API), steered by text:
 * - `message`: a direct Message `direct reply`;
 * - `input`: a task in INPUT_REQUIRED; the next message on it completes it, echoing its text;
 * - `hold`: a WORKING task that runs until it is canceled or the server closes;
 * - `stream:<n>`: WORKING, chunks `chunk 1`..`chunk n` of artifact `a-1`, COMPLETED;
 * - `throw:<Code>`: throws `A2AError(<Code>)` with metadata `{taskId: 't-1'}` before any
 *   event, which the handler returns to the client as that error;
 * - anything else: WORKING, artifact `a-1` (`echo`) with the text and {@link TEST_DATA}, COMPLETED.
 */
export function bindingTestAgent(): BindingTestAgent {
  const contexts: RequestContext[] = [];
  return {
    contexts,
    async execute(ctx, task) {
      contexts.push(ctx);
      const text = ctx.text;
      if (ctx.task) return task.complete({ artifactId: 'a-1', text });
      if (text === 'message') return task.reply('direct reply');
      if (text === 'input') return task.requireInput('which one?');
      if (text.startsWith('throw:')) {
        const code = text.slice('throw:'.length) as A2AErrorCode;
        throw new A2AError(code, `agent refused: ${code}`, { metadata: { taskId: 't-1' } });
      }
      await task.working();
      if (text === 'hold') return untilAborted(ctx.signal);
      const stream = /^stream:(\d+)$/.exec(text);
      if (stream) {
        const n = Number(stream[1]);
        for (let i = 1; i <= n; i++) {
          await task.artifact(
            { artifactId: 'a-1', text: `chunk ${i}` },
            { append: i > 1, lastChunk: i === n },
          );
        }
        return task.complete();
      }
      await task.artifact({ artifactId: 'a-1', name: 'echo', parts: [{ text }, { data: TEST_DATA }] });
      await task.complete();
    },
  };
}

/** The task id whose reads fail in a {@link CrashingTaskStore}. */
export const CRASH_TASK_ID = 'crash';

/**
 * A TaskStore (our public extension point) whose reads of task {@link CRASH_TASK_ID} fail with
 * a plain Error carrying a secret: an unexpected failure that must become InternalError
 * without leaking its message.
 */
export class CrashingTaskStore extends MemoryTaskStore {
  override get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    if (id === CRASH_TASK_ID) return Promise.reject(new Error('secret internal detail'));
    return super.get(scope, id);
  }
}

/**
 * An EventBus (our public extension point) that counts live subscriptions per task: a
 * stream of a task holds one until it ends, so a test can see that a binding stopped
 * iterating (client went away, server closed).
 */
export class CountingEventBus implements EventBus {
  readonly #inner = new InProcessEventBus();
  readonly #live = new Map<string, number>();

  publish(topic: TaskTopic, event: TaskEvent): void {
    this.#inner.publish(topic, event);
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const stop = this.#inner.subscribe(topic, listener);
    const key = topic.taskId;
    this.#live.set(key, (this.#live.get(key) ?? 0) + 1);
    let live = true;
    return () => {
      if (live) {
        live = false;
        this.#live.set(key, (this.#live.get(key) ?? 1) - 1);
      }
      stop();
    };
  }

  /** Live subscriptions to `taskId`'s events. */
  subscriptions(taskId: string): number {
    return this.#live.get(taskId) ?? 0;
  }

  /** Live subscriptions to any task. */
  get total(): number {
    let n = 0;
    for (const count of this.#live.values()) n += count;
    return n;
  }
}

/** Polls `condition` every 10 ms, at most `tries` times; true once it holds. */
export async function eventually(condition: () => boolean, tries = 300): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

/** Every error an agent can raise and have returned as is (InvalidAgentResponse is the server's own). */
export const AGENT_RAISABLE_ERRORS: readonly A2AErrorCode[] = ERROR_CODES.filter(
  (code) => code !== 'InvalidAgentResponse',
);

/**
 * The real handler with one forced fault, because the DefaultRequestHandler never fails a
 * stream after it started (an agent that throws midway produces a FAILED status event
 * instead). To check how a binding writes such an error (G5), SendStreamingMessage passes
 * `after` real events through and then throws `fail(taskId)`.
 */
export class StreamFailsAfter extends DefaultRequestHandler {
  readonly #after: number;
  readonly #fail: (taskId: string) => Error;

  constructor(options: DefaultRequestHandlerOptions, after: number, fail: (taskId: string) => Error) {
    super(options);
    this.#after = after;
    this.#fail = fail;
  }

  override async sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    const events = await super.sendStreamingMessage(request, ctx);
    const after = this.#after;
    const fail = this.#fail;
    return (async function* () {
      let taskId = '';
      let n = 0;
      for await (const event of events) {
        taskId ||= event.task?.id ?? '';
        yield event;
        if (++n === after) break;
      }
      throw fail(taskId);
    })();
  }
}
