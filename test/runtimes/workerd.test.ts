/**
 * Cloudflare Workers (issue 29): examples/cloudflare-worker bundled with esbuild as wrangler
 * would, run by the real `workerd` from npm (nodejs_compat), memory store.
 */
import { test } from 'node:test';
import { checkExampleAgent, freePort, startExample } from './support.js';

test('workerd: card, SendMessage, SSE, GetTask, CancelTask', async (t) => {
  const port = await freePort();
  const example = await startExample('cloudflare-worker', {
    port,
    ready: /serving on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  t.after(() => example.stop());
  await checkExampleAgent(example.url);
});
