/**
 * What the workerd tests share: the workerd binary, and bundling a worker as a Workers bundler
 * does (esbuild, conditions `workerd`/`worker`/`browser`, lazy imports left out).
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './support.js';

/**
 * The workerd binary itself. node_modules/.bin/workerd is a Node shim that spawns it when npm ran
 * no postinstall (as `npm ci` here does), and a signal to the shim left the binary running with
 * the test's stdout: the runner then waited for that pipe forever.
 */
export const WORKERD = (createRequire(import.meta.url)('workerd') as { default: string }).default;

/** Bundles `entry` as a Workers bundler does (lazy imports left out) into `<dir>/worker.js`. */
export async function bundleWorker(
  t: { after(fn: () => Promise<void>): void },
  entry: string,
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
  return dir;
}
