/**
 * The server process of the fault suite: `node --import tsx test/faults/fault-server.ts <store>
 * <leaseMs> [<interruptedTimeoutMs>]`, with `A2A_FAULT_POINT` (and/or `A2A_FAULT_TRACE`) in
 * its environment. Prints `listening <url>` once ready; a SIGTERM closes it gracefully and exits
 * 0. Its agent is the scenario's (scenario.ts). `GET /faults/disk` answers `{"fills":n}`, how
 * many `full` faults filled the disk so far; `POST /faults/free` gives the room back (what an
 * operator freeing space does), then answers 204.
 */
import { faultDiskFills, freeFaultDisks } from '../../src/core/stores/fault-points.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { createA2AServer } from '../../src/server/http.js';
import { FAULT_AGENT_CARD, faultServerOptions } from './scenario.js';

const [store, leaseMs, interruptedTimeoutMs] = process.argv.slice(2);
const server = createA2AServer({
  ...faultServerOptions(
    store as StoreSpec,
    Number(leaseMs),
    interruptedTimeoutMs === undefined ? undefined : Number(interruptedTimeoutMs),
  ),
  onError: (error) => process.stderr.write(`onError: ${String(error)}\n`),
  routes: {
    '/faults/disk': () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fills: faultDiskFills() }),
    }),
    '/faults/free': () => {
      freeFaultDisks();
      return { status: 204, headers: {}, body: '' };
    },
  },
});
const { url } = await server.listen(0, '127.0.0.1');
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
process.stdout.write(`listening ${url} ${FAULT_AGENT_CARD.name}\n`);
