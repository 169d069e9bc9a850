import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import { outboxContract } from './outbox-contract.js';

outboxContract('memory', () => {
  const configs = new MemoryPushConfigStore();
  return Promise.resolve({
    outbox: new MemoryPushOutbox(configs),
    taskStore: new MemoryTaskStore(),
    configs,
    close: () => Promise.resolve(),
  });
});
