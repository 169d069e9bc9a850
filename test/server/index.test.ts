/**
 * The surface a store or event-bus author works with, imported from `a2a-kit/server` alone:
 * a small custom TaskStore, PushConfigStore and EventBus written against the exported types
 * (tsc checks them in `npm run lint`) and run under the default handler.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DefaultRequestHandler,
  TaskVersionConflictError,
  createA2AServer,
  type EventBus,
  type IdempotencyKey,
  type IdempotencyRecord,
  type InterruptedTaskRef,
  type ListPosition,
  type PushConfigPage,
  type PushConfigStore,
  type StoredTask,
  type TaskEvent,
  type TaskEventListener,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
  type TaskTopic,
} from '../../src/server/index.js';
import { A2AClient } from '../../src/client/index.js';
import type { TaskPushNotificationConfig } from '../../src/model/index.js';

const scopeKey = (scope: TaskScope, id: string): string => JSON.stringify([scope.tenant, scope.owner, id]);

/** Newest first, ties by id descending: is `a` strictly after `position` in that order? */
function isAfter(a: ListPosition, position: ListPosition): boolean {
  return (
    a.statusTimeMs < position.statusTimeMs || (a.statusTimeMs === position.statusTimeMs && a.id < position.id)
  );
}

/** A store an extender could write: maps, copies in and out, compare-and-set on the version. */
class MapTaskStore implements TaskStore {
  readonly tasks = new Map<string, StoredTask>();
  readonly records = new Map<string, IdempotencyRecord>();
  saves = 0;

  async get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    const stored = this.tasks.get(scopeKey(scope, id));
    return stored && structuredClone(stored);
  }

  async save(record: StoredTask, expectedVersion: number): Promise<void> {
    const key = scopeKey(record, record.task.id);
    if ((this.tasks.get(key)?.version ?? 0) !== expectedVersion)
      throw new TaskVersionConflictError(record.task.id);
    this.tasks.set(key, structuredClone(record));
    this.saves++;
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const matching = [...this.tasks.values()]
      .filter((s) => s.tenant === query.tenant && s.owner === query.owner)
      .filter((s) => query.contextId === undefined || s.task.contextId === query.contextId)
      .filter((s) => query.status === undefined || s.task.status.state === query.status)
      .filter(
        (s) => query.statusTimeAtOrAfterMs === undefined || s.statusTimeMs >= query.statusTimeAtOrAfterMs,
      )
      .sort((a, b) => b.statusTimeMs - a.statusTimeMs || (a.task.id < b.task.id ? 1 : -1));
    const after = query.after;
    const rest = after
      ? matching.filter((s) => isAfter({ statusTimeMs: s.statusTimeMs, id: s.task.id }, after))
      : matching;
    return {
      tasks: rest.slice(0, query.limit).map((s) => structuredClone(s)),
      totalSize: matching.length,
      hasMore: rest.length > query.limit,
    };
  }

  async claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const id = JSON.stringify([key.tenant, key.principal, key.messageId]);
    const existing = this.records.get(id);
    if (existing) return existing;
    this.records.set(id, record);
    return undefined;
  }

  async setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const id = JSON.stringify([key.tenant, key.principal, key.messageId]);
    if (record) this.records.set(id, record);
    else this.records.delete(id);
  }

  async listInterrupted(): Promise<InterruptedTaskRef[]> {
    return [];
  }
}

class MapPushConfigStore implements PushConfigStore {
  private readonly configs = new Map<string, TaskPushNotificationConfig & { id: string; taskId: string }>();

  async put(
    scope: TaskScope,
    config: TaskPushNotificationConfig & { id: string; taskId: string },
  ): Promise<TaskPushNotificationConfig> {
    this.configs.set(scopeKey(scope, `${config.taskId}/${config.id}`), structuredClone(config));
    return structuredClone(config);
  }

  async get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    const config = this.configs.get(scopeKey(scope, `${taskId}/${id}`));
    return config && structuredClone(config);
  }

  async list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    const mine = [...this.configs.entries()]
      .filter(([key, c]) => key === scopeKey(scope, `${taskId}/${c.id}`))
      .map(([, c]) => c)
      .filter((c) => afterId === undefined || c.id > afterId)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const page = mine.slice(0, limit);
    return {
      configs: page.map((c) => structuredClone(c)),
      nextAfterId: mine.length > limit ? page[page.length - 1]?.id : undefined,
    };
  }

  async delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return this.configs.delete(scopeKey(scope, `${taskId}/${id}`));
  }

  async deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    for (const [key, c] of this.configs)
      if (key === scopeKey(scope, `${taskId}/${c.id}`)) this.configs.delete(key);
  }
}

/** An event bus: listeners per topic, delivered synchronously in publish order. */
class MapEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<TaskEventListener>>();
  readonly published: TaskEvent[] = [];

  publish(topic: TaskTopic, event: TaskEvent): void {
    this.published.push(event);
    for (const listener of this.listeners.get(`${topic.tenant}/${topic.taskId}`) ?? []) listener(event);
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const key = `${topic.tenant}/${topic.taskId}`;
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }
}

describe('a2a-kit/server: the extender surface', () => {
  test('custom store, push-config store and event bus run under the default handler', async (t) => {
    const taskStore = new MapTaskStore();
    const eventBus = new MapEventBus();
    const server = createA2AServer({
      agent: async () => {},
      card: {
        name: 'custom-store',
        description: 'Runs on an extender’s store and bus',
        version: '1.0.0',
        skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'] }],
      },
      handler: (card) =>
        new DefaultRequestHandler({
          executor: {
            async execute(ctx, task) {
              await task.working();
              await task.complete(`you said ${ctx.text}`);
            },
          },
          card,
          taskStore,
          pushConfigStore: new MapPushConfigStore(),
          eventBus,
        }),
    });
    const { url } = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    const client = await A2AClient.connect(url);

    const reply = await client.send({ text: 'hi' });
    assert.equal(reply.kind, 'task');
    const done = await client.waitForTask(reply.task.id, { deadline: 10_000 });
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');

    const streamed: string[] = [];
    for await (const event of client.stream({ text: 'again' })) streamed.push(event.kind);
    assert.ok(streamed.length > 0);

    const listed = await client.listTasks({});
    assert.equal(listed.tasks.length, 2);
    assert.ok(taskStore.saves >= 4, `saves: ${taskStore.saves}`);
    assert.ok(eventBus.published.some((e) => e.state === 'TASK_STATE_COMPLETED'));
  });

  test('TaskVersionConflictError names the task', () => {
    const error = new TaskVersionConflictError('t-1');
    assert.ok(error instanceof Error);
    assert.equal(error.taskId, 't-1');
  });
});
