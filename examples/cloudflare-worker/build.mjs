// Bundles worker.mjs for workerd as wrangler would (esbuild, the `workerd`/`worker`/`browser`
// conditions, node: built-ins left to nodejs_compat), then writes the workerd config with
// $PORT, the Durable Object's SQLite files in $A2A_DATA_DIR (./a2a-data unless set). wrangler
// needs Node 22; `npx wrangler dev` works as well where it runs.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
const data = resolve(here, process.env.A2A_DATA_DIR ?? 'a2a-data');
mkdirSync(data, { recursive: true });
writeFileSync(join(here, 'dist', 'config.capnp'), workerdConfig(port, data));
console.log(`bundled dist/worker.js; tasks in ${data}; serving on http://127.0.0.1:${port}`);

/**
 * The workerd config: the worker, its Durable Object namespace with SQLite storage (what
 * `new_sqlite_classes` is to wrangler) kept on local disk, and the socket.
 */
function workerdConfig(port, dataDir) {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "a2a-data", disk = (path = ${JSON.stringify(dataDir)}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat", "enable_request_signal"],
  durableObjectNamespaces = [ (className = "A2AAgent", uniqueKey = "a2a-anywhere-agent", enableSql = true) ],
  durableObjectStorage = (localDisk = "a2a-data"),
  bindings = [ (name = "A2A_AGENT", durableObjectNamespace = "A2AAgent") ],
);
`;
}
