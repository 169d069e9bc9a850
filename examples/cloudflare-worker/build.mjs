// Bundles worker.mjs for workerd as wrangler would (esbuild, the `workerd`/`worker`/`browser`
// conditions, node: built-ins left to nodejs_compat), then writes the workerd config with
// $PORT, the Durable Object's SQLite files in $A2A_DATA_DIR (./a2a-data unless set). wrangler
// needs Node 22; `npx wrangler dev` works as well where it runs.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions, workerdConfig } from './workerd.mjs';

const here = dirname(fileURLToPath(import.meta.url));
await build(bundleOptions(join(here, 'worker.mjs'), join(here, 'dist', 'worker.js')));
const port = Number(process.env.PORT ?? 41241);
const data = resolve(here, process.env.A2A_DATA_DIR ?? 'a2a-data');
mkdirSync(data, { recursive: true });
writeFileSync(join(here, 'dist', 'config.capnp'), workerdConfig(port, data));
console.log(`bundled dist/worker.js; tasks in ${data}; serving on http://127.0.0.1:${port}`);
