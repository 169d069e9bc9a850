import { openStores } from '../../../src/core/stores/open.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { storeContract, type StoreUnderTest } from './contract.js';

async function openSchema(schema: string, owner: boolean): Promise<StoreUnderTest> {
  const stores = openStores(postgresUrl(), { postgres: { schema } });
  await stores.ready;
  return {
    taskStore: stores.taskStore,
    pushConfigStore: stores.pushConfigStore,
    pushConfigsWithTasks: true,
    close: async () => {
      await stores.close();
      if (owner) await dropSchema(schema);
    },
    reopen: () => openSchema(schema, false),
  };
}

storeContract('postgres', () => openSchema(freshSchema('contract'), true));
