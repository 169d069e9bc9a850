/**
 * A push server process for the worker's crash tests:
 * `node --import tsx test/support/push-retry-child.ts <sqlite-path | postgres-url> <baseDelayMs> [syncDelayMs]`.
 * Retries come after `baseDelayMs` (at most 4 ms more) and practically never give up, so a
 * failing receiver keeps every delivery cycling between settle and claim; `syncDelayMs` makes
 * each sync of the SQLite log that much slower (a slow disk: writes pile up behind it). Prints
 * `listening <url>`; on SIGTERM it closes the server and exits 0, so any other exit is a crash.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openStores } from '../../src/core/stores/open.js';
import { createA2AServer } from '../../src/server/http.js';
import { CARD, LOOPBACK_PUSH, pushAgent } from '../server/push/support.js';

const [where, baseDelay, syncDelay] = process.argv.slice(2);
const baseDelayMs = Number(baseDelay ?? '1');
const syncDelayMs = Number(syncDelay ?? '0');
// A PostgreSQL URL as is; anything else is a SQLite file.
const stores = openStores(where!.startsWith('postgres') ? where! : `sqlite:${where!}`, {
  sqlite: syncDelayMs > 0 ? { beforeSyncForTests: () => sleep(syncDelayMs) } : {},
});
await stores.ready;
const server = createA2AServer({
  agent: pushAgent().agent,
  card: CARD,
  store: stores.taskStore,
  pushNotifications: true,
  push: {
    ...LOOPBACK_PUSH,
    configStore: stores.pushConfigStore,
    outbox: stores.pushOutbox,
    baseDelayMs,
    maxDelayMs: baseDelayMs + 4,
    maxAttempts: 1_000_000,
    timeoutMs: 2000,
    closeGraceMs: 100,
    // Longer than any wait of the tests: a delivery left leased by a lost answer stalls them.
    leaseMs: 120_000,
  },
});
const { url } = await server.listen(0, '127.0.0.1');
process.once('SIGTERM', () => {
  void server
    .close()
    .then(() => stores.close())
    .then(() => process.exit(0));
});
process.stdout.write(`listening ${url}\n`);
