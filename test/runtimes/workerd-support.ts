/**
 * What the workerd tests share: the workerd binary, and bundling and configuring a worker
 * exactly as examples/cloudflare-worker does (its workerd.mjs).
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { ROOT } from './support.js';

/**
 * The workerd binary itself. node_modules/.bin/workerd is a Node shim that spawns it when npm ran
 * no postinstall (as `npm ci` here does), and a signal to the shim left the binary running with
 * the test's stdout: the runner then waited for that pipe forever.
 */
export const WORKERD = (createRequire(import.meta.url)('workerd') as { default: string }).default;

/** examples/cloudflare-worker/workerd.mjs: how the example bundles its worker and configures workerd. */
interface ExampleWorkerd {
  bundleOptions(entry: string, outfile: string): BuildOptions;
  workerdConfig(port: number, dataDir: string, className?: string): string;
}

// Loaded by URL: the example is plain JavaScript outside the TypeScript project.
const exampleWorkerd = (await import(
  pathToFileURL(join(ROOT, 'examples', 'cloudflare-worker', 'workerd.mjs')).href
)) as ExampleWorkerd;

/**
 * The example's workerd config: the worker beside it, objects of `className` with SQLite storage
 * kept in `dataDir`, served on `port`.
 */
export const exampleWorkerdConfig = (port: number, dataDir: string, className?: string): string =>
  exampleWorkerd.workerdConfig(port, dataDir, className);

/** Bundles `entry` as the example does (lazy imports left out) into `<dir>/worker.js`. */
export async function bundleWorker(
  t: { after(fn: () => Promise<void>): void },
  entry: string,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-workerd-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await build(exampleWorkerd.bundleOptions(join(ROOT, entry), join(dir, 'worker.js')));
  return dir;
}
