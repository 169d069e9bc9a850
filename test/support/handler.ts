/**
 * Builds a DefaultRequestHandler around an inline agent for tests, with a memory store the
 * test can inspect, plus small helpers for call contexts, messages and streams.
 */
import { randomUUID } from 'node:crypto';
import { Role } from '../../src/model/enums.js';
import type { AgentCapabilities, AgentCard, Message, Part, StreamResponse } from '../../src/model/schema.js';
import { createCallContext, type ServerCallContext } from '../../src/server/context.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../src/server/executor.js';
import {
  DefaultRequestHandler,
  type DefaultRequestHandlerOptions,
} from '../../src/server/request-handler.js';
import { MemoryPushConfigStore, MemoryTaskStore } from '../../src/server/stores/memory.js';

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
export async function collect(stream: AsyncIterable<StreamResponse>, max = 1000): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
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
