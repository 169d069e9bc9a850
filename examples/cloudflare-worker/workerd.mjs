// What build.mjs bundles and writes for workerd, in a file of its own so that the repository's
// tests bundle and configure their workers exactly as this example does.

/** esbuild options bundling `entry` into `outfile` as wrangler would. */
export function bundleOptions(entry, outfile) {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    // node: built-ins come from nodejs_compat. What a2a-kit loads on first use (the gRPC binding,
    // the push sender's HTTP client) stays outside the bundle: a worker that never uses it never
    // loads it.
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
  };
}

/**
 * The workerd config: the worker (`worker.js` beside the config), its Durable Object namespace of
 * class `className` with SQLite storage (what `new_sqlite_classes` is to wrangler) kept in
 * `dataDir`, and the socket on `port`.
 */
export function workerdConfig(port, dataDir, className = 'A2AAgent') {
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
  durableObjectNamespaces = [ (className = "${className}", uniqueKey = "a2a-anywhere-agent", enableSql = true) ],
  durableObjectStorage = (localDisk = "a2a-data"),
  bindings = [ (name = "A2A_AGENT", durableObjectNamespace = "${className}") ],
);
`;
}
