/**
 * The store contract for the Durable Object stores (a2a-kit/cloudflare), over the SQLite
 * storage of test/support/durable-object-storage.ts; reopened on the same file for restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { durableObjectStores } from '../../../src/core/stores/durable-object/index.js';
import { openTestDurableObjectStorage } from '../../support/durable-object-storage.js';
import { storeContract, type StoreUnderTest } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-do-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function openFile(path: string): StoreUnderTest {
  const storage = openTestDurableObjectStorage(path);
  const stores = durableObjectStores(storage);
  return {
    taskStore: stores.taskStore,
    pushConfigStore: stores.pushConfigStore,
    pushConfigsWithTasks: true,
    close: () => Promise.resolve(storage.close()),
    reopen: () => Promise.resolve(openFile(path)),
  };
}

storeContract('durable object', () => Promise.resolve(openFile(join(dir, `object-${n++}.sqlite`))));
