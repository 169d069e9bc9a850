/**
 * Cloudflare Workers (issue 29): examples/cloudflare-worker bundled with esbuild as wrangler
 * would, run by the real `workerd` from npm (nodejs_compat), memory store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { hostTestServer } from '../server/adapters/host-checks.js';
import {
  EXPECTED_CLIENT_SUMMARY,
  ROOT,
  checkExampleAgent,
  freePort,
  requireBuiltPackage,
  startExample,
  stopGroup,
  waitForPort,
} from './support.js';

/**
 * The workerd binary itself. node_modules/.bin/workerd is a Node shim that spawns it when npm ran
 * no postinstall (as `npm ci` here does), and a signal to the shim left the binary running with
 * the test's stdout: the runner then waited for that pipe forever.
 */
const WORKERD = (createRequire(import.meta.url)('workerd') as { default: string }).default;

test('workerd: card, SendMessage, SSE, GetTask, CancelTask', async (t) => {
  const port = await freePort();
  const example = await startExample('cloudflare-worker', {
    port,
    ready: /serving on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  t.after(() => example.stop());
  await checkExampleAgent(example.url);
});

/** Bundles `entry` as a Workers bundler does (lazy imports left out) and writes its workerd config. */
async function workerDir(
  t: { after(fn: () => Promise<void>): void },
  entry: string,
  port: number,
  extraServices = '',
  globalOutbound = '',
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-workerd-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile: join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['node:*'],
    // What a2a-kit loads on first use (gRPC, the push sender) stays out, as in the example.
    plugins: [
      {
        name: 'lazy-imports-stay-lazy',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
    logLevel: 'warning',
  });
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
