/**
 * The store contract: one suite of tests that every TaskStore / PushConfigStore pair must
 * pass. `storeContract(name, factory)` registers it for one implementation; each test gets
 * fresh, empty stores from the factory and closes them.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState } from '../../../src/model/enums.js';
import type { Message, Task, TaskPushNotificationConfig } from '../../../src/model/schema.js';
import { DefaultRequestHandler } from '../../../src/core/handler/default-handler.js';
import type { PushConfigStore } from '../../../src/core/stores/push-config-store.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type StoredTask,
  type TaskQuery,
  type TaskStore,
} from '../../../src/core/stores/task-store.js';
import { callAs, testCard, testExecutor, userMessage } from '../../support/handler.js';

/** A pair of fresh, empty stores and how to release them. */
export interface StoreUnderTest {
  readonly taskStore: TaskStore;
  readonly pushConfigStore: PushConfigStore;
  /** Closes both stores. */
  close(): Promise<void>;
  /** Opens the same data again (a restart), when the store keeps data across opens. */
  reopen?(): Promise<StoreUnderTest>;
  /** True when the push configs live with the tasks (retention removes them too). */
  readonly pushConfigsWithTasks: boolean;
}

export type StoreFactory = () => Promise<StoreUnderTest>;

const T = 't1';
const ALICE = { tenant: T, owner: 'alice' };

function task(id: string, ms: number, state: TaskState = TaskState.WORKING, contextId = 'ctx-a'): Task {
  return {
    id,
    contextId,
    status: { state, timestamp: new Date(ms).toISOString() },
    history: [],
    artifacts: [],
  };
}

function record(
  id: string,
  ms: number,
  options: { version?: number; state?: TaskState; contextId?: string; tenant?: string; owner?: string } = {},
): StoredTask {
  return {
    tenant: options.tenant ?? T,
    owner: options.owner ?? 'alice',
    version: options.version ?? 1,
    statusTimeMs: ms,
    task: task(id, ms, options.state, options.contextId),
  };
}

async function open(t: TestContext, factory: StoreFactory): Promise<StoreUnderTest> {
  const stores = await factory();
  t.after(() => stores.close());
  return stores;
}

function ids(page: { tasks: StoredTask[] }): string[] {
  return page.tasks.map((r) => r.task.id);
}

/** Every task matching `query`, walking pages of `query.limit`. */
async function walk(store: TaskStore, query: TaskQuery, between?: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let after = query.after;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.list({ ...query, ...(after ? { after } : {}) });
    seen.push(...ids(page));
    if (!page.hasMore) return seen;
    const last = page.tasks[page.tasks.length - 1]!;
    after = { statusTimeMs: last.statusTimeMs, id: last.task.id };
    if (between) await between();
  }
  throw new Error('too many pages');
}

/** A clock reading later than every record written so far (waits out the current millisecond). */
async function laterMillisecond(): Promise<number> {
  const now = Date.now();
  for (let i = 0; i < 1_000 && Date.now() <= now; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  return Date.now();
}

/** Registers the contract tests for the stores `factory` makes. */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    test('create and read back; another tenant or owner sees nothing', async (t) => {
      const { taskStore } = await open(t, factory);
      const saved = record('a', 1_000);
      saved.task.history = [userMessage('hi', { taskId: 'a', contextId: 'ctx-a' })];
      saved.task.metadata = { k: [1, 'two', { three: null }] };
      await taskStore.save(saved, 0);
      const read = await taskStore.get(ALICE, 'a');
      assert.deepEqual(read, saved);
      assert.equal(await taskStore.get({ tenant: T, owner: 'bob' }, 'a'), undefined);
      assert.equal(await taskStore.get({ tenant: 'other', owner: 'alice' }, 'a'), undefined);
      assert.equal(await taskStore.get(ALICE, 'missing'), undefined);
    });

    test('save is compare-and-set: a stale writer gets TaskVersionConflictError and changes nothing', async (t) => {
      const { taskStore } = await open(t, factory);
      await taskStore.save(record('a', 1), 0);
      await assert.rejects(taskStore.save(record('a', 2), 0), TaskVersionConflictError);
      await assert.rejects(taskStore.save(record('a', 2, { version: 3 }), 1), TaskVersionConflictError);
      await assert.rejects(taskStore.save(record('missing', 2, { version: 2 }), 1), TaskVersionConflictError);
      const next = record('a', 2, { version: 2, state: TaskState.COMPLETED });
      await taskStore.save(next, 1);
      await assert.rejects(
        taskStore.save(record('a', 3, { version: 2, state: TaskState.FAILED }), 1),
        TaskVersionConflictError,
      );
      assert.deepEqual(await taskStore.get(ALICE, 'a'), next);
      // Two writers racing from the same version: exactly one wins.
      const results = await Promise.allSettled([
        taskStore.save(record('a', 4, { version: 3 }), 2),
        taskStore.save(record('a', 5, { version: 3 }), 2),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const loser = results.find((r) => r.status === 'rejected');
      assert.ok(loser && loser.reason instanceof TaskVersionConflictError);
      assert.equal((await taskStore.get(ALICE, 'a'))?.version, 3);
    });

    test('GetTask historyLength through the handler: the store keeps the whole history', async (t) => {
      const { taskStore, pushConfigStore } = await open(t, factory);
      const handler = new DefaultRequestHandler({
        executor: testExecutor,
        card: () => testCard({ streaming: true }),
        taskStore,
        pushConfigStore,
      });
      t.after(() => handler.close());
      const ctx = callAs('alice', T);
      const first = await handler.sendMessage({ message: userMessage('input') }, ctx);
      assert.ok(first.task);
      const id = first.task.id;
      await handler.sendMessage({ message: userMessage('done', { taskId: id }) }, ctx);
      const full = await handler.getTask({ id }, ctx);
      assert.equal(full.status.state, TaskState.COMPLETED);
      const all = full.history ?? [];
      assert.ok(all.length >= 3, `history of ${all.length}`);
      const last2 = await handler.getTask({ id, historyLength: 2 }, ctx);
      assert.deepEqual(last2.history, all.slice(-2));
      const none = await handler.getTask({ id, historyLength: 0 }, ctx);
      assert.equal(none.history, undefined);
      assert.equal(
        (await taskStore.get({ tenant: T, owner: 'alice' }, id))?.task.history?.length,
        all.length,
      );
    });

    test('list: newest first, id breaks ties, every filter, totalSize and hasMore', async (t) => {
      const { taskStore } = await open(t, factory);
      const rows = [
        record('a', 10),
        record('b', 20, { state: TaskState.COMPLETED }),
        record('c', 20),
        record('d', 5, { contextId: 'ctx-b' }),
        record('e', 30, { contextId: 'ctx-b', state: TaskState.COMPLETED }),
        record('f', 30, { owner: 'bob' }),
        record('g', 40, { tenant: 'other' }),
      ];
      for (const r of rows) await taskStore.save(r, 0);
      const all = await taskStore.list({ ...ALICE, limit: 10 });
      assert.deepEqual(ids(all), ['e', 'c', 'b', 'a', 'd']);
      assert.equal(all.totalSize, 5);
      assert.equal(all.hasMore, false);
      assert.deepEqual(all.tasks[0], rows[4]);

      const first = await taskStore.list({ ...ALICE, limit: 2 });
      assert.deepEqual(ids(first), ['e', 'c']);
      assert.equal(first.hasMore, true);
      assert.equal(first.totalSize, 5);
      const second = await taskStore.list({ ...ALICE, limit: 2, after: { statusTimeMs: 20, id: 'c' } });
      assert.deepEqual(ids(second), ['b', 'a']);
      assert.equal(second.hasMore, true);
      assert.equal(second.totalSize, 5);
      const exact = await taskStore.list({ ...ALICE, limit: 1, after: { statusTimeMs: 10, id: 'a' } });
      assert.deepEqual(ids(exact), ['d']);
      assert.equal(exact.hasMore, false);

      assert.deepEqual(ids(await taskStore.list({ ...ALICE, limit: 10, contextId: 'ctx-b' })), ['e', 'd']);
      const done = await taskStore.list({ ...ALICE, limit: 10, status: TaskState.COMPLETED });
      assert.deepEqual(ids(done), ['e', 'b']);
      assert.equal(done.totalSize, 2);
      const recent = await taskStore.list({ ...ALICE, limit: 10, statusTimeAtOrAfterMs: 20 });
      assert.deepEqual(ids(recent), ['e', 'c', 'b']);
      const combined = await taskStore.list({
        ...ALICE,
        limit: 1,
        contextId: 'ctx-a',
        status: TaskState.WORKING,
        statusTimeAtOrAfterMs: 10,
      });
      assert.deepEqual(ids(combined), ['c']);
      assert.equal(combined.totalSize, 2);
      assert.equal(combined.hasMore, true);
      const none = await taskStore.list({ ...ALICE, limit: 10, contextId: 'nope' });
      assert.deepEqual(none, { tasks: [], totalSize: 0, hasMore: false });
      assert.deepEqual(ids(await taskStore.list({ tenant: T, owner: 'bob', limit: 10 })), ['f']);
      assert.deepEqual(ids(await taskStore.list({ tenant: 'other', owner: 'alice', limit: 10 })), ['g']);
      assert.equal((await taskStore.list({ tenant: 'nobody', owner: 'alice', limit: 10 })).totalSize, 0);
    });

    test('totalSize follows state changes and retention', async (t) => {
      const { taskStore } = await open(t, factory);
      for (let i = 0; i < 6; i++) await taskStore.save(record(`s${i}`, i), 0);
      const total = async (status?: TaskState): Promise<number> =>
        (await taskStore.list({ ...ALICE, limit: 1, ...(status ? { status } : {}) })).totalSize;
      await taskStore.save(record('s0', 10, { version: 2, state: TaskState.INPUT_REQUIRED }), 1);
      await taskStore.save(record('s0', 11, { version: 3 }), 2);
      await taskStore.save(record('s1', 12, { version: 2, state: TaskState.COMPLETED }), 1);
      await taskStore.save(record('s2', 13, { version: 2, state: TaskState.COMPLETED }), 1);
      await taskStore.save(record('s3', 14, { version: 2 }), 1);
      assert.equal(await total(), 6);
      assert.equal(await total(TaskState.WORKING), 4);
      assert.equal(await total(TaskState.COMPLETED), 2);
      assert.equal(await total(TaskState.INPUT_REQUIRED), 0);
      assert.equal(await taskStore.purgeTerminalBefore!(13), 1);
      assert.equal(await total(), 5);
      assert.equal(await total(TaskState.COMPLETED), 1);
      assert.equal((await taskStore.list({ ...ALICE, limit: 1, statusTimeAtOrAfterMs: 12 })).totalSize, 2);
    });

    test('cursor pages under concurrent inserts and updates: every untouched task once, none twice', async (t) => {
      const { taskStore } = await open(t, factory);
      const count = 240;
      const base = 1_000_000;
      const versions = new Map<string, StoredTask>();
      const seed: Promise<void>[] = [];
      for (let i = 0; i < count; i++) {
        // Groups of three share a timestamp, so ties are broken by id across page borders.
        const r = record(`task-${String(i).padStart(4, '0')}`, base + Math.floor(i / 3), {
          contextId: i % 2 === 0 ? 'even' : 'odd',
        });
        versions.set(r.task.id, r);
        seed.push(taskStore.save(r, 0));
      }
      await Promise.all(seed);
      let clock = base + count;
      let inserted = 0;
      const touched = new Set<string>();
      const order = [...versions.keys()];
      // Between pages: a new task arrives and an older one changes (its status time moves up).
      const between = async (): Promise<void> => {
        clock++;
        const fresh = record(`new-${inserted++}`, clock, { contextId: inserted % 2 === 0 ? 'even' : 'odd' });
        const victimId = order[(inserted * 37) % order.length]!;
        const current = versions.get(victimId)!;
        const changed: StoredTask = {
          ...current,
          version: current.version + 1,
          statusTimeMs: clock,
          task: {
            ...current.task,
            status: { ...current.task.status, timestamp: new Date(clock).toISOString() },
          },
        };
        touched.add(victimId);
        versions.set(victimId, changed);
        await Promise.all([taskStore.save(fresh, 0), taskStore.save(changed, current.version)]);
      };
      for (const filter of [{}, { contextId: 'even' }, { status: TaskState.WORKING }]) {
        touched.clear();
        const seen = await walk(taskStore, { ...ALICE, limit: 7, ...filter }, between);
        assert.equal(new Set(seen).size, seen.length, 'a task was listed twice');
        const expected = order.filter(
          (id) =>
            !touched.has(id) && (!('contextId' in filter) || versions.get(id)!.task.contextId === 'even'),
        );
        const seenSet = new Set(seen);
        for (const id of expected) assert.ok(seenSet.has(id), `${id} was never listed`);
      }
    });

    test('listInterrupted: waiting tasks of every scope, oldest first', async (t) => {
      const { taskStore } = await open(t, factory);
      assert.ok(taskStore.listInterrupted, 'the store lists interrupted tasks');
      await taskStore.save(record('w1', 30, { state: TaskState.INPUT_REQUIRED }), 0);
      await taskStore.save(
        record('w2', 10, { state: TaskState.AUTH_REQUIRED, tenant: 'x', owner: 'bob' }),
        0,
      );
      await taskStore.save(record('busy', 5), 0);
      await taskStore.save(record('done', 1, { state: TaskState.COMPLETED }), 0);
      assert.deepEqual(await taskStore.listInterrupted(), [
        { tenant: 'x', owner: 'bob', taskId: 'w2', statusTimeMs: 10 },
        { tenant: T, owner: 'alice', taskId: 'w1', statusTimeMs: 30 },
      ]);
    });

    test('idempotency records: claimed once (atomically), replaced, removed, kept opaque', async (t) => {
      const { taskStore } = await open(t, factory);
      const key = { tenant: T, principal: 'alice', messageId: 'm1' };
      const pending = {
        status: 'pending',
        taskId: 't1',
        fingerprint: 'abc',
        createdAtMs: 12,
      } as IdempotencyRecord;
      assert.equal(await taskStore.claimIdempotencyKey(key, pending), undefined);
      assert.deepEqual(
        await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 't2' }),
        pending,
      );
      // Same messageId from another principal or tenant is another key.
      assert.equal(
        await taskStore.claimIdempotencyKey(
          { ...key, principal: 'bob' },
          { status: 'pending', taskId: 't3' },
        ),
        undefined,
      );
      assert.equal(
        await taskStore.claimIdempotencyKey({ ...key, tenant: 'other' }, { status: 'pending', taskId: 't4' }),
        undefined,
      );
      const message: Message = userMessage('answer');
      await taskStore.setIdempotencyRecord(key, { status: 'message', message });
      assert.deepEqual(await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 't5' }), {
        status: 'message',
        message,
      });
      await taskStore.setIdempotencyRecord(key, { status: 'task', taskId: 't1' });
      assert.deepEqual(await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 't6' }), {
        status: 'task',
        taskId: 't1',
      });
      await taskStore.setIdempotencyRecord(key, undefined);
      await taskStore.setIdempotencyRecord(key, undefined);
      // Concurrent claims of a fresh key: exactly one owner.
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: `race-${i}` }),
        ),
      );
      assert.equal(claims.filter((c) => c === undefined).length, 1);
      const winner = claims.find((c) => c !== undefined)!;
      for (const c of claims) if (c !== undefined) assert.deepEqual(c, winner);
      // set on a key never claimed stores it.
      const other = { ...key, messageId: 'm2' };
      await taskStore.setIdempotencyRecord(other, { status: 'task', taskId: 'x' });
      assert.deepEqual(await taskStore.claimIdempotencyKey(other, { status: 'pending', taskId: 'y' }), {
        status: 'task',
        taskId: 'x',
      });
    });

    test('retention of idempotency records: taken before the cutoff are deleted, in bounded chunks', async (t) => {
      const { taskStore } = await open(t, factory);
      assert.ok(taskStore.purgeIdempotencyBefore, 'the store supports idempotency retention');
      const key = (messageId: string, tenant = T): IdempotencyKey => ({
        tenant,
        principal: 'alice',
        messageId,
      });
      const pending = (taskId: string): IdempotencyRecord => ({ status: 'pending', taskId });
      assert.equal(await taskStore.claimIdempotencyKey(key('old'), pending('t-old')), undefined);
      await taskStore.setIdempotencyRecord(key('old-other-tenant', 'x'), { status: 'task', taskId: 't-x' });
      const cutoff = await laterMillisecond();
      assert.equal(await taskStore.claimIdempotencyKey(key('new'), pending('t-new')), undefined);
      // Turning a pending record into its result keeps the time its key was taken.
      await taskStore.setIdempotencyRecord(key('new'), { status: 'task', taskId: 't-new' });
      assert.equal(await taskStore.purgeIdempotencyBefore(cutoff - 1_000), 0);
      assert.equal(await taskStore.purgeIdempotencyBefore(cutoff), 2);
      assert.equal(await taskStore.purgeIdempotencyBefore(cutoff), 0);
      // The old messageId is free again; the new one is still remembered.
      assert.equal(await taskStore.claimIdempotencyKey(key('old'), pending('t-old-2')), undefined);
      assert.deepEqual(await taskStore.claimIdempotencyKey(key('new'), pending('t-other')), {
        status: 'task',
        taskId: 't-new',
      });
      const claims: Promise<unknown>[] = [];
      for (let i = 0; i < 1_200; i++)
        claims.push(taskStore.claimIdempotencyKey(key(`m-${i}`), pending(`t-${i}`)));
      await Promise.all(claims);
      const all = await laterMillisecond();
      assert.equal(await taskStore.purgeIdempotencyBefore(all), 1_202);
      assert.equal(await taskStore.claimIdempotencyKey(key('m-7'), pending('again')), undefined);
    });

    test('retention: purgeTerminalBefore deletes only terminal tasks older than the cutoff', async (t) => {
      const stores = await open(t, factory);
      const { taskStore, pushConfigStore } = stores;
      assert.ok(taskStore.purgeTerminalBefore, 'the store supports retention');
      await taskStore.save(record('old-done', 10, { state: TaskState.COMPLETED }), 0);
      await taskStore.save(
        record('old-failed', 11, { state: TaskState.FAILED, owner: 'bob', tenant: 'x' }),
        0,
      );
      await taskStore.save(record('old-canceled', 12, { state: TaskState.CANCELED }), 0);
      await taskStore.save(record('old-rejected', 13, { state: TaskState.REJECTED }), 0);
      await taskStore.save(record('old-working', 14), 0);
      await taskStore.save(record('old-waiting', 15, { state: TaskState.INPUT_REQUIRED }), 0);
      await taskStore.save(record('new-done', 100, { state: TaskState.COMPLETED }), 0);
      await pushConfigStore.put(ALICE, pushConfig('old-done', 'p1'));
      await pushConfigStore.put(ALICE, pushConfig('new-done', 'p2'));
      assert.equal(await taskStore.purgeTerminalBefore(0), 0);
      assert.equal(await taskStore.purgeTerminalBefore(100), 4);
      assert.equal(await taskStore.purgeTerminalBefore(100), 0);
      assert.deepEqual(ids(await taskStore.list({ ...ALICE, limit: 10 })), [
        'new-done',
        'old-waiting',
        'old-working',
      ]);
      assert.equal(await taskStore.get({ tenant: 'x', owner: 'bob' }, 'old-failed'), undefined);
      if (stores.pushConfigsWithTasks) {
        assert.equal(await pushConfigStore.get(ALICE, 'old-done', 'p1'), undefined);
      }
      assert.ok(await pushConfigStore.get(ALICE, 'new-done', 'p2'));
    });

    test('retention removes many tasks in bounded chunks', async (t) => {
      const { taskStore } = await open(t, factory);
      assert.ok(taskStore.purgeTerminalBefore, 'the store supports retention');
      const saves: Promise<void>[] = [];
      for (let i = 0; i < 1_200; i++) {
        saves.push(taskStore.save(record(`done-${i}`, i, { state: TaskState.COMPLETED }), 0));
      }
      await Promise.all(saves);
      assert.equal(await taskStore.purgeTerminalBefore(1_100), 1_100);
      assert.equal((await taskStore.list({ ...ALICE, limit: 1 })).totalSize, 100);
    });

    test('push configs: put replaces, get, list by id in pages, delete, deleteAll, scoped', async (t) => {
      const { pushConfigStore: push } = await open(t, factory);
      const stored = await push.put(ALICE, pushConfig('a', 'c2'));
      assert.deepEqual(stored, pushConfig('a', 'c2'));
      await push.put(ALICE, pushConfig('a', 'c1'));
      await push.put(ALICE, pushConfig('a', 'c3'));
      await push.put(ALICE, { ...pushConfig('a', 'c2'), url: 'https://example.com/replaced' });
      await push.put(ALICE, pushConfig('b', 'c9'));
      assert.equal((await push.get(ALICE, 'a', 'c2'))?.url, 'https://example.com/replaced');
      assert.equal(await push.get({ tenant: T, owner: 'bob' }, 'a', 'c2'), undefined);
      assert.equal(await push.get(ALICE, 'b', 'c2'), undefined);
      const first = await push.list(ALICE, 'a', 2);
      assert.deepEqual(
        first.configs.map((c) => c.id),
        ['c1', 'c2'],
      );
      assert.equal(first.nextAfterId, 'c2');
      const second = await push.list(ALICE, 'a', 2, 'c2');
      assert.deepEqual(
        second.configs.map((c) => c.id),
        ['c3'],
      );
      assert.equal(second.nextAfterId, undefined);
      assert.deepEqual(await push.list({ tenant: 'x', owner: 'alice' }, 'a', 10), {
        configs: [],
        nextAfterId: undefined,
      });
      assert.equal(await push.delete(ALICE, 'a', 'c1'), true);
      assert.equal(await push.delete(ALICE, 'a', 'c1'), false);
      await push.deleteAll(ALICE, 'a');
      assert.deepEqual((await push.list(ALICE, 'a', 10)).configs, []);
      assert.equal((await push.list(ALICE, 'b', 10)).configs.length, 1);
    });

    test('SRV-COMPAT-8: push configs keep the recorded protocol version, across a restart too', async (t) => {
      const stores = await open(t, factory);
      const v03 = { ...pushConfig('a', 'old'), protocolVersion: '0.3' };
      assert.deepEqual(await stores.pushConfigStore.put(ALICE, v03), v03);
      assert.deepEqual(await stores.pushConfigStore.get(ALICE, 'a', 'old'), v03);
      assert.deepEqual((await stores.pushConfigStore.list(ALICE, 'a', 10)).configs, [v03]);
      if (stores.reopen) {
        const again = await stores.reopen();
        t.after(() => again.close());
        assert.deepEqual(await again.pushConfigStore.get(ALICE, 'a', 'old'), v03);
      }
    });

    test('page-token secret: created once, the same on every read and after a restart', async (t) => {
      const stores = await open(t, factory);
      const { taskStore } = stores;
      assert.ok(taskStore.getOrCreateSecret, 'the store keeps secrets');
      const [a, b] = await Promise.all([taskStore.getOrCreateSecret('s'), taskStore.getOrCreateSecret('s')]);
      assert.equal(a.length, 32);
      assert.deepEqual(b, a);
      assert.notDeepEqual(await taskStore.getOrCreateSecret('other'), a);
      if (stores.reopen) {
        const again = await stores.reopen();
        t.after(() => again.close());
        assert.deepEqual(await again.taskStore.getOrCreateSecret!('s'), a);
      }
    });

    test('ListTasks page tokens from one handler work on another handler over the same store', async (t) => {
      const { taskStore, pushConfigStore } = await open(t, factory);
      const make = (): DefaultRequestHandler =>
        new DefaultRequestHandler({
          executor: testExecutor,
          card: () => testCard({ streaming: true }),
          taskStore,
          pushConfigStore,
        });
      const one = make();
      const two = make();
      t.after(() => Promise.all([one.close(), two.close()]));
      const ctx = callAs('alice', T);
      for (let i = 0; i < 3; i++) await one.sendMessage({ message: userMessage(`n${i}`) }, ctx);
      const page = await one.listTasks({ pageSize: 2 }, ctx);
      assert.ok(page.nextPageToken);
      const rest = await two.listTasks({ pageSize: 2, pageToken: page.nextPageToken }, ctx);
      assert.equal(rest.tasks.length, 1);
      assert.equal(rest.totalSize, 3);
    });
  });
}

function pushConfig(taskId: string, id: string): TaskPushNotificationConfig & { id: string; taskId: string } {
  return { id, taskId, url: `https://example.com/hook/${id}`, token: `tok-${id}` };
}
