/**
 * Node-only modules loaded on first use, synchronously: the SQLite and PostgreSQL drivers,
 * `node:fs` and the like. A static import would load them with the runtime-neutral entries
 * (`a2a-kit`, `a2a-kit/server`), which then could not start on workerd; `require` through
 * `process.getBuiltinModule` keeps the callers synchronous (SQLite still opens, or throws, at
 * once) and exists on Node 20.16+, Bun and Deno. See docs/frameworks-and-runtimes.md.
 */
import type { createRequire as CreateRequire } from 'node:module';

interface NodeProcess {
  getBuiltinModule?: (id: string) => unknown;
}

let nodeRequire: ReturnType<typeof CreateRequire> | undefined;

/**
 * `require(specifier)` from this package (a CommonJS package or a `node:` built-in); throws a
 * clear error on a runtime without Node's module loader (workerd, browsers).
 */
export function requireNode<T>(specifier: string): T {
  if (nodeRequire === undefined) {
    const proc = (globalThis as { process?: NodeProcess }).process;
    const nodeModule = proc?.getBuiltinModule?.('node:module') as
      { createRequire: typeof CreateRequire } | undefined;
    if (nodeModule === undefined) {
      throw new Error(
        `${specifier} needs Node.js, Bun or Deno: this runtime cannot load it (use the memory store)`,
      );
    }
    nodeRequire = nodeModule.createRequire(import.meta.url);
  }
  return nodeRequire(specifier) as T;
}
