/**
 * Mount paths: a server mounted below `/agents/echo` routes the path below it and names URLs
 * under it on its card. Shared by the node and fetch adapters (and through them the framework
 * adapters).
 */

/** `basePath` normalized: `''` for the root, else `/a/b` (leading slash, no trailing one). */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** `path` below `basePath` (`/agents/echo/a2a/jsonrpc` → `/a2a/jsonrpc`); undefined when outside it. */
export function pathBelow(path: string, basePath: string): string | undefined {
  if (basePath === '') return path;
  if (path === basePath) return '/';
  if (path.startsWith(basePath) && path.charCodeAt(basePath.length) === 47 /* / */) {
    return path.slice(basePath.length);
  }
  return undefined;
}
