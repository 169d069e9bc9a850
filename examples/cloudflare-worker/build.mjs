// Bundles worker.mjs for workerd as wrangler would (esbuild, the `workerd`/`worker`/`browser`
// conditions, node: built-ins left to nodejs_compat), then writes the workerd config with
// $PORT. wrangler needs Node 22; `npx wrangler dev` works as well where it runs.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [join(here, 'worker.mjs')],
  outfile: join(here, 'dist', 'worker.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  // node: built-ins come from nodejs_compat. What a2a-kit loads on first use (the gRPC binding,
  // the push sender's HTTP client) stays outside the bundle: a memory-store worker never loads it.
  external: ['node:*'],
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
const port = Number(process.env.PORT ?? 41241);
writeFileSync(
  join(here, 'dist', 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat", "enable_request_signal"],
);
`,
);
console.log(`bundled dist/worker.js; serving on http://127.0.0.1:${port}`);
