/**
 * A server process for crash-recovery tests: `node --import tsx test/support/lease-child.ts
 * <store> <leaseMs> [resumable]`. Its agent reports progress, sends an artifact, then works
 * until canceled (declared resumable with the third argument). Prints `listening <url>` once ready; the test kills it with SIGKILL.
 */
import { createA2AServer } from '../../src/server/http.js';
import type { StoreSpec } from '../../src/core/stores/open.js';

const [store, leaseMs, resumable] = process.argv.slice(2);
const server = createA2AServer({
  agent: {
    execute: async (ctx, task) => {
      await task.working('started');
      await task.artifact({ artifactId: 'progress', name: 'progress', text: 'half done' });
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    },
    resumable: resumable === 'resumable',
  },
  card: {
    name: 'lease child',
    description: 'works until killed',
    version: '1.0.0',
    skills: [{ id: 'work', name: 'work', description: 'works', tags: ['test'] }],
  },
  store: store as StoreSpec,
  recovery: { leaseMs: Number(leaseMs) },
});
const { url } = await server.listen(0, '127.0.0.1');
process.stdout.write(`listening ${url}\n`);
