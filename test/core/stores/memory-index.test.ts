/**
 * The memory store's per-caller ListTasks index agrees with a plain sort of the caller's
 * tasks for every filter, position and page size, through random inserts, status changes,
 * out-of-order times and deletions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import type { StoredTask, TaskQuery } from '../../../src/core/stores/task-store.js';
import { TaskState } from '../../../src/model/enums.js';

const STATES = [TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.COMPLETED] as const;

function record(id: string, version: number, time: number, state: TaskState, contextId: string): StoredTask {
  return {
    tenant: '',
    owner: 'o',
    version,
    statusTimeMs: time,
    task: { id, contextId, status: { state }, history: [], artifacts: [] },
  };
}

test('pages from the index equal a plain sort, for every filter', async () => {
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const store = new MemoryTaskStore({ maxTasks: 150 });
  const current = new Map<string, StoredTask>();
  let clock = 1000;
  for (let step = 0; step < 3000; step++) {
    clock += random(3); // equal times are common
    const id = `t${random(200)}`;
    const previous = current.get(id);
    if (previous && isFinal(previous)) continue;
    const state = STATES[random(STATES.length)]!;
    const time = previous ? Math.max(previous.statusTimeMs, clock - random(2)) : clock - random(5);
    const next = record(id, (previous?.version ?? 0) + 1, time, state, `c${random(4)}`);
    if (previous) (next.task as { contextId: string }).contextId = previous.task.contextId!;
    try {
      await store.save(next, previous?.version ?? 0);
      current.set(id, next);
    } catch {
      continue; // full of running tasks
    }
    // Retention may have dropped terminal tasks: read what is really there.
    for (const [key, value] of current) {
      if (!(await store.get({ tenant: '', owner: 'o' }, key))) current.delete(key);
      else if (value !== current.get(key)) current.set(key, value);
    }
    if (step % 50 !== 0) continue;
    for (const filter of [
      {},
      { status: TaskState.COMPLETED },
      { contextId: 'c1' },
      { contextId: 'c2', status: TaskState.WORKING },
      { statusTimeAtOrAfterMs: clock - 40 },
    ]) {
      const expected = [...current.values()]
        .filter((r) => filter.status === undefined || r.task.status.state === filter.status)
        .filter((r) => !('contextId' in filter) || r.task.contextId === filter.contextId)
        .filter(
          (r) => filter.statusTimeAtOrAfterMs === undefined || r.statusTimeMs >= filter.statusTimeAtOrAfterMs,
        )
        .sort((a, b) => b.statusTimeMs - a.statusTimeMs || (a.task.id < b.task.id ? 1 : -1))
        .map((r) => r.task.id);
      const walked: string[] = [];
      let after: TaskQuery['after'];
      for (let page = 0; page < 100; page++) {
        const result = await store.list({
          tenant: '',
          owner: 'o',
          limit: 1 + random(9),
          ...filter,
          ...(after ? { after } : {}),
        });
        assert.equal(result.totalSize, expected.length);
        walked.push(...result.tasks.map((r) => r.task.id));
        const last = result.tasks[result.tasks.length - 1];
        if (!result.hasMore || !last) break;
        after = { statusTimeMs: last.statusTimeMs, id: last.task.id };
      }
      assert.deepEqual(walked, expected, JSON.stringify(filter));
    }
  }
  assert.ok(store.size <= 150);
});

function isFinal(r: StoredTask): boolean {
  return r.task.status.state === TaskState.COMPLETED;
}
