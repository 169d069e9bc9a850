import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// ---- layering (README "Architecture") ----------------------------------------------------------
// The folders of src/ are layers, lowest first: model, errors, core, bindings, client, then
// server, agents and cli on top. A folder imports only layers below it; the bindings and the
// client reach the core through its contracts only. Relative imports are matched as written
// (`../../core/stores/memory.js`), so a glob `**/<folder>/**` names a folder of src/.
const FOLDERS = [
  'model',
  'errors',
  'core',
  'bindings',
  'client',
  'bridges',
  'server',
  'agents',
  'inspector',
  'cli',
];
/** Wire and hosting packages: the layers under the bindings never load them. */
const WIRE_PACKAGES = [
  '@grpc/*',
  '@bufbuild/*',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:tls',
];
/** The core modules other layers may import: context, the executor contract, the handler interface. */
const CORE_CONTRACTS = ['context', 'executor', 'handler/request-handler', 'trace-carrier'];

/** The import rule of `src/<folder>`: the `allowed` folders, none of the others, plus `extra`. */
function layer(folder, allowed, extra = []) {
  const banned = FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  const patterns = banned.map((f) => ({
    // The MCP SDK's own server/ and client/ folders are no layers of ours.
    group: [`**/${f}/**`, '!@modelcontextprotocol/sdk/**'],
    message: `src/${folder} is below src/${f} in the layers (README "Architecture") and must not import it.`,
  }));
  return {
    files: [`src/${folder}/**/*.ts`, `src/${folder}/**/*.tsx`],
    rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, ...extra] }] },
  };
}

const noWire = (folder) => ({
  group: WIRE_PACKAGES,
  message: `src/${folder} knows no wire and no hosting; only the bindings and the layers above use this.`,
});
const coreContractsOnly = (folder) => ({
  regex: `(^|/)core/(?!(${CORE_CONTRACTS.join('|')})\\.js$)`,
  message: `src/${folder} uses only the core's contracts (${CORE_CONTRACTS.join(', ')}): not its stores, event bus, task manager or default handler.`,
});
// gRPC is an optional peer dependency loaded by a2a-kit/grpc: the server and the client load it
// with `await import(...)` when asked to (not checked by this rule), never at import time.
/** Modules of bindings/grpc that load no gRPC package at run time (type imports only). */
const GRPC_FREE = ['auth-request'];
const grpcOnDemand = (folder) => {
  const message = `src/${folder} must not load gRPC at import time: use a type import, or await import(...) where gRPC is asked for.`;
  return [
    { group: ['@grpc/*', '@bufbuild/*', '**/bindings/compat-v03/grpc-*'], allowTypeImports: true, message },
    {
      regex: `(^|/)bindings/grpc/(?!(${GRPC_FREE.join('|')})\\.js$)`,
      allowTypeImports: true,
      message,
    },
  ];
};

// The MCP SDK and the AI SDK are optional peers too: the CLI and the agents reach the bridges
// with `await import(...)` (not checked by this rule) when a command asks for them.
const bridgesOnDemand = (folder) => [
  {
    group: ['**/bridges/**', '@modelcontextprotocol/*', 'ai', '@ai-sdk/*'],
    allowTypeImports: true,
    message: `src/${folder} must not load the bridges or their SDKs at import time: use a type import, or await import(...) where they are asked for.`,
  },
];

const layers = [
  layer('model', [], [noWire('model')]),
  layer('errors', ['model'], [noWire('errors')]),
  layer('core', ['model', 'errors'], [noWire('core')]),
  layer('bindings', ['model', 'errors', 'core'], [coreContractsOnly('bindings')]),
  layer(
    'client',
    ['model', 'errors', 'core', 'bindings'],
    [coreContractsOnly('client'), ...grpcOnDemand('client')],
  ),
  layer('server', ['model', 'errors', 'core', 'bindings'], [...grpcOnDemand('server')]),
  // The bridges (MCP, AI SDK) sit on the client and the executor contract only; the CLI and
  // the agents load them with `await import(...)`, since their libraries are optional peers.
  layer(
    'bridges',
    ['model', 'errors', 'core', 'client'],
    [coreContractsOnly('bridges'), ...grpcOnDemand('bridges')],
  ),
  layer(
    'agents',
    ['model', 'errors', 'core', 'bindings', 'client', 'bridges', 'server'],
    [...bridgesOnDemand('agents')],
  ),
  // The inspector drives agents through the client only; the CLI serves it (`a2a inspect`).
  layer('inspector', ['model', 'errors', 'bindings', 'client'], [...grpcOnDemand('inspector')]),
  layer(
    'cli',
    ['model', 'errors', 'core', 'bindings', 'client', 'bridges', 'server', 'agents', 'inspector'],
    [...bridgesOnDemand('cli')],
  ),
];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'src/bindings/grpc/gen/',
      'src/bindings/compat-v03/gen/',
      'coverage/',
      'a2a-data/',
      // The API reference `npm run docs` generates.
      'docs/api/',
      // Other builds benchmarked beside this one (BENCH_KIT_DIST).
      '.bench-tmp/',
      // What the examples build or link when they run (issue 29).
      'examples/node_modules/',
      'examples/*/.next/',
      'examples/*/dist/',
      'examples/*/next-env.d.ts',
      // What `next dev` writes in the Next.js fixture of the disconnect test.
      'test/runtimes/next-app/.next/',
      'test/runtimes/next-app/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The examples and the runtime scripts run on Node, Bun, Deno or workerd: their globals.
    files: ['examples/**/*.mjs', 'examples/**/*.js', 'test/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
      },
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  ...layers,
);
