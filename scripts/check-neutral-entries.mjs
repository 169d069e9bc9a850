#!/usr/bin/env node
/**
 * Bundles each runtime-neutral entry the way a Workers bundler does (conditions `workerd`,
 * `worker`, `browser`) and fails when one reaches a module that is not there: a native addon,
 * a Node-only package, or a `node:` built-in outside the set workerd offers with `nodejs_compat`.
 * Run by `npm run lint`; test/runtimes/workerd.test.ts then runs the bundle on real workerd.
 */
import process from 'node:process';
import { build } from 'esbuild';

/** The runtime-neutral entries (package.json exports) and their sources. */
export const NEUTRAL_ENTRIES = {
  'a2a-kit': 'src/index.ts',
  'a2a-kit/server': 'src/server/index.ts',
  'a2a-kit/client': 'src/client/index.ts',
  'a2a-kit/model': 'src/model/index.ts',
  'a2a-kit/errors': 'src/errors/index.ts',
  'a2a-kit/cloudflare': 'src/server/adapters/cloudflare.ts',
};

/**
 * The `node:` built-ins a neutral entry may import: each exists on Node 20, Bun, Deno and on
 * workerd with `nodejs_compat` (checked on workerd 1.20261117, compatibility date 2025-09-01).
 */
export const ALLOWED_BUILTINS = new Set([
  'node:async_hooks',
  'node:buffer',
  'node:crypto',
  'node:dns/promises',
  'node:events',
  'node:net',
  'node:path',
  'node:stream',
  'node:tls',
  'node:util',
]);

/** Bundles `entry` for workerd; returns the problems found (empty when it would load). */
export async function checkEntry(entry) {
  const problems = [];
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'silent',
    metafile: true,
    plugins: [
      {
        name: 'builtins',
        setup(b) {
          // What loads on first use (a dynamic import) is not loaded at import time.
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
          );
          b.onResolve({ filter: /^node:/ }, (args) => {
            if (ALLOWED_BUILTINS.has(args.path)) return { path: args.path, external: true };
            problems.push(`${args.path} (imported by ${args.importer})`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  }).catch((error) => {
    for (const e of error.errors ?? [error]) problems.push(`${e.text} (${e.location?.file ?? '?'})`);
    return undefined;
  });
  if (result) {
    for (const input of Object.keys(result.metafile.inputs)) {
      if (input.endsWith('.node')) problems.push(`native addon ${input}`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let failed = false;
  for (const [name, entry] of Object.entries(NEUTRAL_ENTRIES)) {
    const problems = await checkEntry(entry);
    if (problems.length > 0) {
      failed = true;
      process.stderr.write(
        `${name} (${entry}) pulls what workerd lacks:\n  ${[...new Set(problems)].join('\n  ')}\n`,
      );
    }
  }
  if (failed) process.exit(1);
  process.stdout.write(`runtime-neutral entries ok: ${Object.keys(NEUTRAL_ENTRIES).join(', ')}\n`);
}
