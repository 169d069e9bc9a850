/** For the PostgreSQL bus tests: WORKING events that name their version, and buses on a fresh schema. */
import type { TestContext } from 'node:test';
import { TaskState } from '../../src/model/enums.js';
import type { TaskEvent } from '../../src/core/event-bus/event-bus.js';
import { PostgresEventBus, type PostgresEventBusOptions } from '../../src/core/event-bus/postgres.js';
import { PostgresDatabase } from '../../src/core/stores/postgres/database.js';
import { dropSchema, freshSchema, postgresUrl } from './postgres.js';

/**
 * Version `version` of task `taskId`: a WORKING status update carrying the version in its
 * metadata, and `pad` too when given (to make it large).
 */
export function workingEvent(taskId: string, version: number, pad?: string): TaskEvent {
  return {
    taskId,
    version,
    state: TaskState.WORKING,
    response: {
      statusUpdate: {
        taskId,
        contextId: 'c',
        status: { state: TaskState.WORKING },
        metadata: pad ? { version, pad } : { version },
      },
    },
  };
}

/** A fresh schema, and replicas' buses on it (each with a pool of its own), all gone after the test. */
export interface BusSchema {
  readonly schema: string;
  /** The channel the buses of this schema share. */
  readonly channel: string;
  /** A bus on a database pool of its own, as a replica has. */
  open(options?: PostgresEventBusOptions): Promise<PostgresEventBus>;
}

/** {@link BusSchema} for test `t`: its buses are closed, then the schema dropped, after `t`. */
export function busSchema(t: TestContext, prefix: string): BusSchema {
  const schema = freshSchema(prefix);
  const opened: { bus: PostgresEventBus; database: PostgresDatabase }[] = [];
  t.after(async () => {
    for (const { bus, database } of opened) {
      await bus.close();
      await database.release();
    }
    await dropSchema(schema);
  });
  return {
    schema,
    channel: `a2a_events_${schema}`,
    open: async (options) => {
      const database = await PostgresDatabase.open({ connectionString: postgresUrl(), schema });
      const bus = new PostgresEventBus(database, options);
      opened.push({ bus, database });
      return bus;
    },
  };
}
