import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import { storeContract } from './contract.js';

storeContract('memory', () =>
  Promise.resolve({
    taskStore: new MemoryTaskStore(),
    pushConfigStore: new MemoryPushConfigStore(),
    pushConfigsWithTasks: false,
    close: () => Promise.resolve(),
  }),
);
