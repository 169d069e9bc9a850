/**
 * A push server process for crash tests: `node --import tsx test/support/push-child.ts <store>`.
 * Push to 127.0.0.1 over http is allowed, retries are fast and many, leases short. Its agent
 * (`steps:N`) reports WORKING, N artifacts, COMPLETED. Prints `listening <url>` once ready; the
 * test kills it with SIGKILL.
 */
import type { StoreSpec } from '../../src/core/stores/open.js';
import { createA2AServer } from '../../src/server/http.js';
import { CARD, LOOPBACK_PUSH, pushAgent } from '../server/push/support.js';

const [store] = process.argv.slice(2);
const server = createA2AServer({
  agent: pushAgent().agent,
  card: CARD,
  store: store as StoreSpec,
  pushNotifications: true,
  push: { ...LOOPBACK_PUSH, maxAttempts: 100_000, timeoutMs: 500, connectTimeoutMs: 500, leaseMs: 1500 },
});
const { url } = await server.listen(0, '127.0.0.1');
process.stdout.write(`listening ${url}\n`);
