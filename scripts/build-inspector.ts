/**
 * Bundles the inspector's page (src/inspector/page, TypeScript + Preact + plain CSS) with
 * esbuild into `<outdir>/app.js` and `<outdir>/app.css`: everything in two local files, no CDN.
 * `npm run build` runs it for dist/inspector/assets; the browser tests build into a temp folder.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const PAGE = fileURLToPath(new URL('../src/inspector/page/', import.meta.url));

/** Builds the page bundle into `outdir`. */
export async function buildInspectorPage(outdir: string): Promise<void> {
  await build({
    entryPoints: [
      { in: `${PAGE}main.tsx`, out: 'app' },
      { in: `${PAGE}style.css`, out: 'app' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outdir = process.argv[2] ?? fileURLToPath(new URL('../dist/inspector/assets/', import.meta.url));
  await buildInspectorPage(outdir);
  process.stdout.write(`inspector page bundled into ${outdir}\n`);
}
