/**
 * The HTTP+JSON routes (spec §11.3, proto http rules), each also under a `/{tenant}`
 * prefix. Paths are relative to the binding root (`/a2a/rest`).
 */
import type { A2AMethod } from '../../model/operations.js';
import type { QuerySpec } from './wire.js';

/** A matched route: the operation and the values taken from the path. */
export interface RouteMatch {
  readonly method: A2AMethod;
  /** `""` when the path has no tenant prefix. */
  readonly tenant: string;
  /** Task id from the path (`{id}` of task routes, `{task_id}` of push-config routes). */
  readonly taskId?: string;
  /** Push-config id from the path. */
  readonly configId?: string;
  /** Query parameters the route reads (GET routes only). */
  readonly query?: QuerySpec;
}

/** The outcome of matching: a route, a known path with the wrong verb, or nothing. */
export type RouteResult =
  { kind: 'match'; route: RouteMatch } | { kind: 'wrong-verb'; allow: string } | { kind: 'none' };

/** Query parameters of `GET /tasks` (proto ListTasksRequest). */
export const LIST_TASKS_QUERY: QuerySpec = {
  contextId: 'string',
  status: 'string',
  pageSize: 'int',
  pageToken: 'string',
  historyLength: 'int',
  statusTimestampAfter: 'string',
  includeArtifacts: 'bool',
  tenant: 'string',
};
/** Query parameters of `GET /tasks/{id}`. */
export const GET_TASK_QUERY: QuerySpec = {
  historyLength: 'int',
  currentGeneration: 'string',
  tenant: 'string',
};
/** The query of routes that read nothing else: only `tenant` (any request field not in the path). */
export const TENANT_QUERY: QuerySpec = { tenant: 'string' };
/** Query parameters of `GET /tasks/{task_id}/pushNotificationConfigs`. */
export const LIST_CONFIGS_QUERY: QuerySpec = { pageSize: 'int', pageToken: 'string', tenant: 'string' };

const NONE: RouteResult = { kind: 'none' };

function decode(segment: string): string | undefined {
  if (segment === '') return undefined;
  if (!segment.includes('%')) return segment;
  try {
    const value = decodeURIComponent(segment);
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

function match(
  verb: string,
  method: A2AMethod,
  allowed: string,
  tenant: string,
  extra?: Omit<RouteMatch, 'method' | 'tenant'>,
): RouteResult {
  if (!allowed.split(', ').includes(verb)) return { kind: 'wrong-verb', allow: allowed };
  return { kind: 'match', route: { method, tenant, ...extra } };
}

/** Matches segments that carry no tenant. */
function matchPlain(verb: string, s: readonly string[], tenant: string): RouteResult {
  const first = s[0];
  switch (s.length) {
    case 1:
      if (first === 'message:send') return match(verb, 'SendMessage', 'POST', tenant);
      if (first === 'message:stream') return match(verb, 'SendStreamingMessage', 'POST', tenant);
      if (first === 'tasks') return match(verb, 'ListTasks', 'GET', tenant, { query: LIST_TASKS_QUERY });
      if (first === 'extendedAgentCard')
        return match(verb, 'GetExtendedAgentCard', 'GET', tenant, { query: TENANT_QUERY });
      return NONE;
    case 2: {
      if (first !== 'tasks') return NONE;
      const raw = s[1] as string;
      const colon = raw.lastIndexOf(':');
      const custom = colon >= 0 ? raw.slice(colon + 1) : '';
      if (custom === 'cancel' || custom === 'subscribe') {
        const taskId = decode(raw.slice(0, colon));
        if (taskId === undefined) return NONE;
        return custom === 'cancel'
          ? match(verb, 'CancelTask', 'POST', tenant, { taskId })
          : match(verb, 'SubscribeToTask', 'GET, POST', tenant, { taskId });
      }
      const taskId = decode(raw);
      if (taskId === undefined) return NONE;
      return match(verb, 'GetTask', 'GET', tenant, { taskId, query: GET_TASK_QUERY });
    }
    case 3: {
      if (first !== 'tasks' || s[2] !== 'pushNotificationConfigs') return NONE;
      const taskId = decode(s[1] as string);
      if (taskId === undefined) return NONE;
      if (verb === 'POST') return match(verb, 'CreateTaskPushNotificationConfig', 'POST', tenant, { taskId });
      return match(verb, 'ListTaskPushNotificationConfigs', 'GET, POST', tenant, {
        taskId,
        query: LIST_CONFIGS_QUERY,
      });
    }
    case 4: {
      if (first !== 'tasks' || s[2] !== 'pushNotificationConfigs') return NONE;
      const taskId = decode(s[1] as string);
      const configId = decode(s[3] as string);
      if (taskId === undefined || configId === undefined) return NONE;
      if (verb === 'DELETE') {
        return match(verb, 'DeleteTaskPushNotificationConfig', 'DELETE', tenant, {
          taskId,
          configId,
          query: TENANT_QUERY,
        });
      }
      return match(verb, 'GetTaskPushNotificationConfig', 'GET, DELETE', tenant, {
        taskId,
        configId,
        query: TENANT_QUERY,
      });
    }
    default:
      return NONE;
  }
}

/**
 * Resolves `path` (below the binding root, starting with `/`) for HTTP `verb`. Routes without a
 * tenant are tried first (G8), so `/tasks/tasks` is GetTask of task `tasks`. One
 * trailing slash is ignored.
 */
export function matchRoute(verb: string, path: string): RouteResult {
  // Lenient on one trailing slash: `/tasks/` is `/tasks`.
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path.length < 2 || path.charCodeAt(0) !== 47 /* / */) return NONE;
  const segments = path.slice(1).split('/');
  const plain = matchPlain(verb, segments, '');
  if (plain.kind === 'match' || segments.length < 2) return plain;
  const tenant = decode(segments[0] as string);
  if (tenant === undefined) return plain;
  const tenanted = matchPlain(verb, segments.slice(1), tenant);
  if (tenanted.kind === 'match') return tenanted;
  return plain.kind === 'wrong-verb' ? plain : tenanted;
}
