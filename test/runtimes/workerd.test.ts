/**
 * Cloudflare Workers (issue 29): examples/cloudflare-worker (its agent in a Durable Object, see
 * also workerd-durable-object.test.ts) started by its `npm start`, and test workers bundled with
 * esbuild as wrangler would, run by the real `workerd` from npm (nodejs_compat).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostTestServer } from '../server/adapters/host-checks.js';
import { WORKERD, bundleWorker } from './workerd-support.js';
import {
  EXPECTED_CLIENT_SUMMARY,
  checkExampleAgent,
  freePort,
  checkStreamDrop,
  requireBuiltPackage,
  spawnWatched,
  startExample,
  stopGroup,
  waitForPort,
} from './support.js';

test('workerd: card, SendMessage, SSE, GetTask, CancelTask', async (t) => {
  const port = await freePort();
  // The example's Durable Object keeps its tasks here, not in the example's own a2a-data/.
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-workerd-example-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const example = await startExample('cloudflare-worker', {
    port,
    ready: /serving on (http:\/\/127\.0\.0\.1:\d+)/,
    env: { A2A_DATA_DIR: dataDir },
  });
  t.after(() => example.stop());
  await checkExampleAgent(example.url);
});

/** {@link bundleWorker}, and a workerd config serving it on `port`. */
async function workerDir(
  t: { after(fn: () => Promise<void>): void },
  entry: string,
  port: number,
  extraServices = '',
  globalOutbound = '',
): Promise<string> {
  const dir = await bundleWorker(t, entry);
  await writeFile(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker)${extraServices} ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],${globalOutbound ? `\n  globalOutbound = "${globalOutbound}",` : ''}
);
`,
  );
  return dir;
}

test('a2a-kit/client on workerd against a Node server', async (t) => {
  await requireBuiltPackage();
  const host = hostTestServer();
  const { url } = await host.server.listen(0, '127.0.0.1');
  t.after(async () => {
    host.release();
    await host.server.close();
  });
  const port = await freePort();
  // The worker's fetch goes out through a network service that allows loopback addresses.
  const dir = await workerDir(
    t,
    'test/runtimes/client-worker.mjs',
    port,
    ', (name = "loopback", network = (allow = ["local", "private"]))',
    'loopback',
  );
  const workerd = spawn(WORKERD, ['serve', join(dir, 'config.capnp'), '--experimental'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  workerd.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  t.after(() => stopGroup(workerd));
  await waitForPort(port).catch((error: Error) => {
    throw new Error(`${error.message}; workerd said: ${stderr}`);
  });
  const response = await fetch(`http://127.0.0.1:${port}/?agent=${encodeURIComponent(url)}`);
  const summary: unknown = await response.json();
  assert.equal(response.status, 200, JSON.stringify(summary));
  assert.deepEqual(summary, EXPECTED_CLIENT_SUMMARY);
});

/**
 * Disconnects under workerd. Its local server learns that a client went away only when it next
 * writes to that client's stream: an event or a keep-alive comment (every `keepAliveMs`). Then it
 * cancels the response body, which stops the stream; the request's signal is aborted as well
 * only with the compatibility flag `enable_request_signal`. Three workers in one workerd, one
 * socket each: keep-alives every second with and without the flag, and keep-alives too far
 * apart to come within the test.
 */
test('workerd: a streaming client that goes away is noticed at the next write', async (t) => {
  await requireBuiltPackage();
  const dir = await bundleWorker(t, 'test/runtimes/disconnect-worker.mjs');
  const variants = [
    { name: 'signal', flags: '"nodejs_compat", "enable_request_signal"', keepAliveMs: 1_000 },
    { name: 'plain', flags: '"nodejs_compat"', keepAliveMs: 1_000 },
    { name: 'late', flags: '"nodejs_compat", "enable_request_signal"', keepAliveMs: 600_000 },
  ];
  const ports = new Map<string, number>();
  for (const v of variants) ports.set(v.name, await freePort());
  const worker = (v: (typeof variants)[number]): string => `const ${v.name} :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${v.flags}],
  bindings = [ (name = "LABEL", text = " ${v.name}"), (name = "KEEP_ALIVE_MS", text = "${v.keepAliveMs}") ],
);`;
  await writeFile(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ ${variants.map((v) => `(name = "${v.name}", worker = .${v.name})`).join(', ')} ],
  sockets = [ ${variants
    .map(
      (v) =>
        `(name = "${v.name}", address = "127.0.0.1:${ports.get(v.name)}", http = (), service = "${v.name}")`,
    )
    .join(', ')} ],
);
${variants.map(worker).join('\n')}
`,
  );
  const workerd = spawnWatched(WORKERD, ['serve', join(dir, 'config.capnp'), '--experimental']);
  t.after(() => workerd.stop());
  for (const port of ports.values()) await waitForPort(port);
  const url = (name: string): string => `http://127.0.0.1:${ports.get(name)}`;
  // The first keep-alive after the drop fails: the stream stops, and the signal is aborted.
  await checkStreamDrop(url('signal'), workerd, ' signal', { signalAborted: true, streamEnded: true });
  // Without enable_request_signal the stream stops the same way; the signal is never aborted.
  await checkStreamDrop(url('plain'), workerd, ' plain', {
    signalAborted: false,
    streamEnded: true,
    quietMs: 2_000,
  });
  // No write since the drop: nothing is noticed (for 3 keep-alive periods of the workers above).
  await checkStreamDrop(url('late'), workerd, ' late', {
    signalAborted: false,
    streamEnded: false,
    quietMs: 3_000,
  });
});
