import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openStores } from '../../../src/core/stores/open.js';
import { storeContract, type StoreUnderTest } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function openFile(path: string): StoreUnderTest {
  const stores = openStores(`sqlite:${path}`);
  return {
    taskStore: stores.taskStore,
    pushConfigStore: stores.pushConfigStore,
    pushConfigsWithTasks: true,
    close: () => stores.close(),
    reopen: () => Promise.resolve(openFile(path)),
  };
}

storeContract('sqlite', () => Promise.resolve(openFile(join(dir, `store-${n++}.sqlite`))));
