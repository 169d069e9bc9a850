/** Bun (issue 29): examples/bun (`Bun.serve({ fetch: server.fetch })`) on the real `bun` from npm. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostTestServer } from '../server/adapters/host-checks.js';
import {
  EXPECTED_CLIENT_SUMMARY,
  checkDisconnect,
  checkExampleAgent,
  requireBuiltPackage,
  runToEnd,
  startExample,
} from './support.js';

test('Bun.serve: card, SendMessage, SSE, GetTask, CancelTask', async (t) => {
  const example = await startExample('bun');
  t.after(() => example.stop());
  await checkExampleAgent(example.url);
});

test('a2a-kit/client on Bun against a Node server', async (t) => {
  await requireBuiltPackage();
  const host = hostTestServer();
  const { url } = await host.server.listen(0, '127.0.0.1');
  t.after(async () => {
    host.release();
    await host.server.close();
  });
  const out = await runToEnd('npx', ['bun', 'test/runtimes/client-script.mjs', url]);
  assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'), EXPECTED_CLIENT_SUMMARY);
});

test('Bun: a streaming client that goes away: the stream stops, its signal aborts, the task runs on', async () => {
  await checkDisconnect('npx', ['bun', 'test/runtimes/disconnect-server.mjs']);
});
