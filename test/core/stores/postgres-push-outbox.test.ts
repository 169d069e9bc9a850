/**
 * The PostgreSQL push outbox: the outbox contract with two outboxes on one schema (two
 * replicas, each its own pool), what only a durable outbox does, and concurrent claims from
 * both replicas never sharing a delivery.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStores, type OpenStoresOptions } from '../../../src/core/stores/open.js';
import { PostgresPushOutbox } from '../../../src/core/stores/postgres/push-outbox.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { outboxContract, type OutboxUnderTest } from '../push/outbox-contract.js';
import { durableOutboxTests } from './durable-outbox.js';

async function openSchema(
  schema: string,
  options: OpenStoresOptions = {},
  owner = true,
): Promise<OutboxUnderTest> {
  const stores = openStores(postgresUrl(), { ...options, postgres: { schema } });
  await stores.ready;
  const replica = openStores(postgresUrl(), { ...options, postgres: { schema } });
  await replica.ready;
  return {
    outbox: stores.pushOutbox,
    taskStore: stores.taskStore,
    configs: stores.pushConfigStore,
    second: replica.pushOutbox,
    close: async () => {
      await replica.close();
      await stores.close();
      if (owner) await dropSchema(schema);
    },
  };
}

outboxContract('postgres', () => openSchema(freshSchema('outbox')));

durableOutboxTests('postgres', () => {
  const schema = freshSchema('outbox');
  let opened = 0;
  return (options) => openSchema(schema, options, ++opened > 1);
});

describe('postgres push outbox', () => {
  test('replicas claiming at once never share a delivery, and each config gives one at a time', async () => {
    const s = await openSchema(freshSchema('outbox'));
    try {
      assert.ok(s.outbox instanceof PostgresPushOutbox);
      const tasks = 20;
      for (let t = 0; t < tasks; t++) {
        await s.configs.put(
          { tenant: '', owner: 'alice' },
          { id: 'a', taskId: `t${t}`, url: 'https://example.com/a' },
        );
      }
      await Promise.all(
        Array.from({ length: tasks }, async (_, t) => {
          for (let v = 0; v < 3; v++) {
            await s.outbox.saveChange(
              s.taskStore,
              {
                tenant: '',
                owner: 'alice',
                task: {
                  id: `t${t}`,
                  contextId: 'c',
                  status: { state: 'TASK_STATE_WORKING' },
                  history: [],
                  artifacts: [],
                },
                version: v + 1,
                statusTimeMs: Date.now(),
              },
              v,
              { statusUpdate: { taskId: `t${t}`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
            );
          }
        }),
      );
      const held = new Set<string>();
      const tasksHeld = new Set<string>();
      // Eight claims at once from both replicas: the twenty heads shared out, none twice.
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? s.second! : s.outbox).claim(`w${i}`, 5, 60_000)),
      );
      for (const d of claims.flat()) {
        assert.ok(!held.has(d.id), 'a delivery claimed twice');
        assert.ok(!tasksHeld.has(d.taskId), 'two deliveries of one config at once');
        held.add(d.id);
        tasksHeld.add(d.taskId);
      }
      assert.equal(held.size, tasks, 'every head claimed by someone');
    } finally {
      await s.close();
    }
  });
});
