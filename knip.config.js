// knip (part of `npm run lint`): no unused file, export or dependency.
import { binSources, entrySources } from './scripts/package-entries.mjs';

export default {
  entry: [
    // The package entries (package.json exports, mapped from dist/ to their sources) and the bin.
    ...entrySources,
    ...binSources,
    // Loaded by path, not imported: the push sender's worker thread and the inspector page
    // (bundled by scripts/build-inspector.ts).
    'src/server/push/webhook-sender-thread.ts',
    'src/inspector/page/main.tsx',
    // Tests, the child processes they spawn, benchmarks and scripts.
    'test/**/*.test.ts',
    'test/support/*-child.ts',
    // The fault suite's server process, bundled by path (test/faults/harness.ts).
    'test/faults/fault-server.ts',
    'bench/**/*.ts',
    'scripts/*.{ts,mjs}',
  ],
  project: ['src/**/*.{ts,tsx}', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}'],
  // Generated from proto/ by `npm run generate`: every message is exported, used or not.
  // dist/ is the build of src/ (checked as sources); the package.json exports point into it.
  ignore: ['src/bindings/grpc/gen/**', 'src/bindings/compat-v03/gen/**', 'dist/**'],
  // An export also used in its own module is not dead code.
  ignoreExportsUsedInFile: true,
  // System tools the tests and benchmarks run (not npm packages), and our own bin, which the
  // package test runs from the installed tarball.
  ignoreBinaries: ['taskset', 'script', 'openssl', 'mkfifo', 'a2a'],
  ignoreDependencies: [
    // Run by path, not imported: buf (and the google protos it reads) by scripts/generate-proto.sh,
    // publint and attw by scripts/check-package.mjs.
    '@bufbuild/buf',
    'google-proto-files',
    'publint',
    '@arethetypeswrong/cli',
    // Run as binaries by the runtime and example tests (npx bun, deno, workerd; next in the
    // Next.js example), not imported from the project's sources.
    'next',
    'react',
    'react-dom',
    'bun',
    'deno',
    'workerd',
  ],
  // Unused exports found when knip was added, in modules other work of this round is changing:
  // left for their owners to delete rather than edited under them (see CHANGELOG / the report).
  ignoreIssues: {
    'src/cli/security-flags.ts': ['exports'], // addClientAuthFlags, addCardVerifyFlags
    'src/inspector/page/format.ts': ['exports'], // pretty
    'src/bindings/compat-v03/types.ts': ['types'], // V03SendResult and three params interfaces
  },
};
