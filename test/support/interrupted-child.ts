/**
 * A replica process for the interrupted-wait tests: `node --import tsx
 * test/support/interrupted-child.ts <store> <interruptedTimeoutMs>`. Its agent asks for input at
 * once (the task waits in INPUT_REQUIRED) and completes on the follow-up. Prints `listening
 * <url>` once ready; the test kills it with SIGKILL, for good.
 */
import type { StoreSpec } from '../../src/core/stores/open.js';
import { createA2AServer } from '../../src/server/http.js';
import { INTERRUPTING_AGENT, INTERRUPTING_CARD } from './interrupting-agent.js';

const [store, timeoutMs] = process.argv.slice(2);
const server = createA2AServer({
  agent: INTERRUPTING_AGENT,
  card: INTERRUPTING_CARD,
  store: store as StoreSpec,
  interruptedTimeoutMs: Number(timeoutMs),
});
const { url } = await server.listen(0, '127.0.0.1');
process.stdout.write(`listening ${url}\n`);
