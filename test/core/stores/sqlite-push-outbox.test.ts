/**
 * The SQLite push outbox: the outbox contract, and what only a durable outbox does: pending
 * deliveries and attempts survive a reopen, finished ones are pruned by age and count, the
 * attempts kept per delivery are bounded, and a change and its notifications land together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStores, type OpenStoresOptions } from '../../../src/core/stores/open.js';
import { SqlitePushOutbox } from '../../../src/core/stores/sqlite/push-outbox.js';
import { outboxContract, type OutboxUnderTest } from '../push/outbox-contract.js';
import { durableOutboxTests } from './durable-outbox.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-outbox-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function openFile(path: string, options: OpenStoresOptions = {}): OutboxUnderTest {
  const stores = openStores(`sqlite:${path}`, options);
  return {
    outbox: stores.pushOutbox,
    taskStore: stores.taskStore,
    configs: stores.pushConfigStore,
    close: () => stores.close(),
  };
}

outboxContract('sqlite', () => Promise.resolve(openFile(join(dir, `contract-${n++}.sqlite`))));

durableOutboxTests('sqlite', () => {
  const path = join(dir, `durable-${n++}.sqlite`);
  return (options) => Promise.resolve(openFile(path, options));
});

describe('sqlite push outbox', () => {
  test('openStores gives the SQLite outbox of the file', async () => {
    const subject = openFile(join(dir, `kind-${n++}.sqlite`));
    try {
      assert.ok(subject.outbox instanceof SqlitePushOutbox);
    } finally {
      await subject.close();
    }
  });
});
