/**
 * How {@link createA2AServer}'s options become its parts: the store named by text, the default
 * request handler, the extra routes, the TLS material and the card signer.
 */
import { A2AConfigError } from '../errors/config-errors.js';
import type { AgentCard } from '../model/schema.js';
import type { ServerCallContext } from '../core/context.js';
import type { AgentExecutor } from '../core/executor.js';
import { InProcessEventBus } from '../core/event-bus/in-process.js';
import type { RequestHandler } from '../core/handler/request-handler.js';
import { DefaultRequestHandler } from '../core/handler/default-handler.js';
import { PUSH_JWKS_PATH } from '../core/push/notification-signing.js';
import { MemoryPushConfigStore } from '../core/stores/memory/push-config-store.js';
import { isStoreSpec, type OpenedStores } from '../core/stores/open.js';
import type { TaskStore } from '../core/stores/task-store.js';
import { readTlsConfig, type TlsConfig } from './auth/tls.js';
import { JSONRPC_PATH, REST_ROOT, WELL_KNOWN_CARD_PATH } from './card/build.js';
import { signAgentCard, type CardSigningKey } from './card/sign.js';
import type { Observability } from './observability/index.js';
import { pickLimits, type A2AServerOptions, type ServerTlsOptions } from './options.js';
import type { PushHosting } from './push/hosting.js';
import type { ServerRoute } from './routing.js';

/** Where tasks live when the `store` option is not given. */
export const DEFAULT_STORE = 'sqlite:./a2a-data/a2a.sqlite';

/** The store `options` names as text (the default included); undefined for a TaskStore. */
export function storeSpecOf(options: A2AServerOptions): string | undefined {
  if (typeof options.store === 'object') return undefined;
  const spec = options.store ?? process.env.A2A_STORE ?? DEFAULT_STORE;
  if (!isStoreSpec(spec)) {
    throw new A2AConfigError(
      'A2A_CONFIG_INVALID_OPTION',
      `store ${JSON.stringify(spec)} is not supported: use 'memory', 'sqlite:<path>', a postgres:// URL or a TaskStore`,
    );
  }
  return spec;
}

/** The DefaultRequestHandler for `options` (when no `handler` is given). */
export function createDefaultHandler(
  card: () => AgentCard,
  options: A2AServerOptions,
  executor: AgentExecutor,
  extendedCard: ((ctx: ServerCallContext) => Promise<AgentCard>) | undefined,
  stores: OpenedStores | undefined,
  push: PushHosting | undefined,
  obs: Observability,
  onError: (error: unknown) => void,
): RequestHandler {
  return new DefaultRequestHandler({
    // Traces, metrics and logs around the agent, the store and the bus (issue 15).
    ...obs.parts({
      executor,
      taskStore: stores ? stores.taskStore : (options.store as TaskStore),
      eventBus: stores?.eventBus ?? new InProcessEventBus(),
    }),
    card,
    ...(extendedCard ? { extendedCard } : {}),
    ...(options.security ? { extendedCardRequiresAuthentication: true } : {}),
    pushConfigStore: push ? push.configs : stores ? stores.pushConfigStore : new MemoryPushConfigStore(),
    ...(options.interruptedTimeoutMs !== undefined
      ? { interruptedTimeoutMs: options.interruptedTimeoutMs }
      : {}),
    ...(options.recovery !== undefined ? { recovery: options.recovery } : {}),
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    ...(options.generation ? { generation: options.generation } : {}), // A2A 1.1 draft (issue 31)
    ...pickLimits(options.limits),
    onError,
  });
}

/** The `routes` option, refused when a path is not absolute or is one the server serves itself. */
export function checkRoutes(routes: A2AServerOptions['routes']): Record<string, ServerRoute> {
  const out: Record<string, ServerRoute> = {};
  for (const [path, route] of Object.entries(routes ?? {})) {
    const own =
      path === JSONRPC_PATH ||
      path === REST_ROOT ||
      path.startsWith(`${REST_ROOT}/`) ||
      path.startsWith(`${JSONRPC_PATH}/`) ||
      path === WELL_KNOWN_CARD_PATH ||
      path === PUSH_JWKS_PATH;
    if (!path.startsWith('/') || path.includes('?') || own || typeof route !== 'function') {
      throw new A2AConfigError(
        'A2A_CONFIG_INVALID_OPTION',
        `routes: ${JSON.stringify(path)} ${own ? 'is a path the server serves itself' : 'must be an absolute path (no query) with a function'}`,
      );
    }
    // Routing compares paths without their trailing slash.
    out[path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path] = route;
  }
  return out;
}

/** The PEM material of the `tls` option (files are read once, at start). */
export function tlsMaterial(tls: ServerTlsOptions): TlsConfig {
  const config = 'certFile' in tls ? readTlsConfig(tls) : tls;
  return tls.minVersion ? { ...config, minVersion: tls.minVersion } : config;
}

/** The card signer of the `sign` option. */
export function signerOf(
  keys: NonNullable<A2AServerOptions['sign']>['keys'],
): (card: AgentCard) => Promise<AgentCard> {
  const list = Array.isArray(keys) ? [...(keys as readonly CardSigningKey[])] : [keys as CardSigningKey];
  if (list.length === 0) throw new Error('sign.keys is empty');
  return (card) => signAgentCard(card, list);
}
