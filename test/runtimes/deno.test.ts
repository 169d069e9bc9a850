/** Deno (issue 29): examples/deno (`Deno.serve(server.fetch)`) on the real `deno` from npm. */
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

test('Deno.serve: card, SendMessage, SSE, GetTask, CancelTask', async (t) => {
  const example = await startExample('deno');
  t.after(() => example.stop());
  await checkExampleAgent(example.url);
});

test('a2a-kit/client on Deno against a Node server', async (t) => {
  await requireBuiltPackage();
  const host = hostTestServer();
  const { url } = await host.server.listen(0, '127.0.0.1');
  t.after(async () => {
    host.release();
    await host.server.close();
  });
  const out = await runToEnd('npx', [
    'deno',
    'run',
    '--allow-net',
    '--allow-read',
    '--allow-env',
    'test/runtimes/client-script.mjs',
    url,
  ]);
  assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'), EXPECTED_CLIENT_SUMMARY);
});

test('Deno: a streaming client that goes away: the stream stops, its signal aborts, the task runs on', async () => {
  await checkDisconnect('npx', [
    'deno',
    'run',
    '--allow-net',
    '--allow-read',
    '--allow-env',
    'test/runtimes/disconnect-server.mjs',
  ]);
});
