/**
 * `a2a-kit/cloudflare`: an A2A server in a Cloudflare Durable Object, its tasks in the object's
 * SQLite storage. The Worker sends each request to one object per tenant; that object runs the
 * server, so every request of a tenant (and its streams) meets the same task manager and event
 * bus. Durable Objects rather than D1: D1 is not in workerd's local mode, and an object's storage
 * is transactional and output-gated (a response waits until the writes before it are durable).
 * Runtime-neutral: `ctx.storage` is passed in, nothing imports `cloudflare:workers`.
 */
import { A2AConfigError } from '../../errors/config-errors.js';
import { durableObjectStores } from '../../core/stores/durable-object/index.js';
import type { DurableObjectStorageLike } from '../../core/stores/durable-object/index.js';
import type { A2AServer } from '../a2a-server.js';
import { createA2AServer } from '../http.js';
import type { A2AServerOptions } from '../options.js';

export * from '../../core/stores/durable-object/index.js';

/**
 * The default cap on a task's JSON characters in a Durable Object: a task is one row, and
 * Cloudflare stores rows of at most 2 MB.
 */
export const DURABLE_OBJECT_MAX_TASK_BYTES = 1_000_000;

/**
 * Options of {@link createDurableObjectServer}: those of createA2AServer but the store (the
 * object's own) and push notifications, which a Durable Object does not deliver (see
 * docs/frameworks-and-runtimes.md).
 */
export type DurableObjectServerOptions = Omit<A2AServerOptions, 'store' | 'pushNotifications' | 'push'> & {
  /** Refused when true: no push delivery in a Durable Object. @default false */
  pushNotifications?: false;
};

/**
 * createA2AServer over the stores of a Durable Object (`ctx.storage`): tasks, idempotency
 * records, crash-recovery leases and the page-token secret survive restarts of the object.
 * Call it once per object (in its constructor or first fetch) and answer with `server.fetch`.
 * @example
 * export class A2AObject {
 *   constructor(ctx) { this.server = createDurableObjectServer(ctx.storage, { agent, card }); }
 *   fetch(request) { return this.server.fetch(request); }
 * }
 */
export function createDurableObjectServer(
  storage: DurableObjectStorageLike,
  options: DurableObjectServerOptions,
): A2AServer {
  const given = options as A2AServerOptions;
  if (given.pushNotifications || given.push !== undefined || given.store !== undefined) {
    throw new A2AConfigError(
      'A2A_CONFIG_INVALID_OPTION',
      given.store !== undefined
        ? 'createDurableObjectServer uses the Durable Object storage as its store: leave `store` out'
        : 'push notifications are not supported in a Durable Object (no durable outbox or delivery worker there): leave `pushNotifications` and `push` out',
    );
  }
  const maxTaskBytes = options.limits?.maxTaskBytes ?? DURABLE_OBJECT_MAX_TASK_BYTES;
  const { taskStore } = durableObjectStores(storage);
  return createA2AServer({
    ...options,
    store: taskStore,
    limits: { ...options.limits, maxTaskBytes },
  });
}
