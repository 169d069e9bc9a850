import { MemoryPushConfigStore, MemoryTaskStore } from '../../../src/server/stores/memory.js';
import { storeContract } from './contract.js';

storeContract('memory', () =>
  Promise.resolve({
    taskStore: new MemoryTaskStore(),
    pushConfigStore: new MemoryPushConfigStore(),
    pushConfigsWithTasks: false,
    close: () => Promise.resolve(),
  }),
);
