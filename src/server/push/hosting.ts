/**
 * Push notifications on {@link createA2AServer} (issue 12): the outbox, the delivery worker, the
 * signing key and its JWKS, and the config checks, put together once for one server.
 */
import { interceptHandler } from '../../core/handler/interceptor.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import type { AddressPolicy, HostResolver } from './address-guard.js';
import { pushConfigInterceptor } from './config-check.js';
import { PushDeliveryWorker } from './delivery-worker.js';
import { MemoryPushOutbox } from '../../core/push/memory-outbox.js';
import { NotificationSigner, type PushSigningKey } from '../../core/push/notification-signing.js';
import type { PushOutbox } from '../../core/push/outbox.js';
import { RetryPolicy, type RetryOptions } from '../../core/push/retry-policy.js';
import type { WebhookLimits, WebhookTls } from './webhook-request.js';
import type { TaskManager } from '../../core/task-manager.js';
import { viewTask } from '../../core/task-view.js';
import { MemoryPushConfigStore } from '../../core/stores/memory/push-config-store.js';
import type { PushConfigStore } from '../../core/stores/push-config-store.js';
import type { PushLogger } from '../observability/logging.js';
import { loggedOutbox } from './delivery-log.js';

/** The `push` option of createA2AServer; used when `pushNotifications` is true. */
export interface PushOptions extends AddressPolicy, RetryOptions, WebhookLimits {
  /**
   * The key that signs notifications (a JWT in `X-A2A-Notification-Signature`), published at
   * `/.well-known/a2a-push-jwks.json`. `false`: unsigned. @default a new ES256 key at start
   * (give one to every replica, and keep it across restarts, so receivers' cached JWKS still verify)
   */
  signingKey?: PushSigningKey | false;
  /** Most webhook POSTs in flight. @default 16 */
  concurrency?: number;
  /** Where configs live. @default the server's store's, else a MemoryPushConfigStore */
  configStore?: PushConfigStore;
  /**
   * Where notifications wait. @default the outbox of the store createA2AServer opened (durable
   * and shared by replicas on SQLite and PostgreSQL), else a MemoryPushOutbox over
   * `configStore` (not durable)
   */
  outbox?: PushOutbox;
  /**
   * Where webhook POSTs are signed and sent: a worker thread of the delivery worker's own
   * (true), or the event loop that serves requests (false: no thread, for small deployments
   * and tests). Claims, config reads, address checks and settlements stay on the event loop
   * either way, so every outbox works the same. @default true
   */
  senderThread?: boolean;
  /** How long close() lets running POSTs finish. @default 5000 */
  closeGraceMs?: number;
  /** How often a shared outbox is polled. @default 1000 */
  pollMs?: number;
  /**
   * How long a claimed delivery is leased to this server; a server that dies holding one
   * delays it (to another replica, or the next start) by at most this. Must exceed `timeoutMs`.
   * @default timeoutMs * 2 + 30000
   */
  leaseMs?: number;
  /** Host name resolution (tests, custom DNS). @default the system resolver */
  resolve?: HostResolver;
  /**
   * TLS of https: webhooks: `ca` adds CA certificates (PEM) trusted for receivers, beside
   * Node's default roots (a receiver with a private CA's certificate).
   * @example tls: { ca: readFileSync('hooks-ca.pem') }
   */
  tls?: WebhookTls;
}

/** The push machinery of one server. */
export class PushHosting {
  readonly configs: PushConfigStore;
  readonly outbox: PushOutbox;
  readonly signer: NotificationSigner | undefined;
  readonly worker: PushDeliveryWorker;
  readonly #policy: AddressPolicy;
  readonly #resolve: HostResolver | undefined;

  /**
   * `log` gets one line per delivery attempt (the server's logger, secrets masked);
   * `generation`: the A2A 1.1 draft support is on (GEN-6).
   */
  constructor(
    options: PushOptions,
    onError?: (error: unknown) => void,
    log?: PushLogger,
    generation = false,
  ) {
    this.configs = options.configStore ?? new MemoryPushConfigStore();
    this.outbox = options.outbox ?? new MemoryPushOutbox(this.configs);
    this.signer = options.signingKey === false ? undefined : new NotificationSigner(options.signingKey);
    this.#policy = {
      ...(options.allowHosts ? { allowHosts: [...options.allowHosts] } : {}),
      ...(options.allowHttp ? { allowHttp: true } : {}),
    };
    this.#resolve = options.resolve;
    this.worker = new PushDeliveryWorker({
      ...pick(options, [
        'connectTimeoutMs',
        'timeoutMs',
        'maxResponseBytes',
        'concurrency',
        'pollMs',
        'leaseMs',
        'closeGraceMs',
        'tls',
        'senderThread',
      ]),
      outbox: log ? loggedOutbox(this.outbox, this.configs, log, onError ?? (() => undefined)) : this.outbox,
      configs: this.configs,
      retry: new RetryPolicy(options),
      generation,
      addressPolicy: this.#policy,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      ...(this.signer ? { signer: this.signer } : {}),
      ...(onError ? { onError } : {}),
    });
  }

  /**
   * Hooks delivery into `handler`'s TaskManager, starts the worker, and returns the handler
   * with the config checks around it; its close() also stops the worker.
   */
  attach(handler: RequestHandler): RequestHandler {
    const manager = (handler as { taskManager?: TaskManager }).taskManager;
    if (!manager || typeof manager.attachPushOutbox !== 'function') {
      throw new Error(
        'pushNotifications needs a handler with a taskManager (the DefaultRequestHandler) to deliver notifications',
      );
    }
    manager.attachPushOutbox(this.outbox);
    // v0.3 receivers get the whole task, read when the notification is sent (SRV-COMPAT-8).
    this.worker.readTasksWith(async (scope, taskId) => {
      const stored = await manager.get(scope, taskId);
      return stored ? viewTask(stored.task) : undefined;
    });
    this.worker.start();
    const wrapped = interceptHandler(handler, [pushConfigInterceptor(this.#policy, this.#resolve)]);
    const inner = handler as RequestHandler & { close?: () => Promise<void> };
    return Object.assign(wrapped, {
      taskManager: manager,
      close: async (): Promise<void> => {
        await inner.close?.();
        await this.worker.close();
        await this.outbox.close?.();
      },
    });
  }

  /** The JWKS reply (GET or HEAD), or 404 when notifications are not signed. */
  jwksReply(method: string): { status: number; headers: Record<string, string>; body?: string } {
    if (!this.signer) return { status: 404, headers: { 'content-type': 'application/json' }, body: '{}' };
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'application/json' }, body: '{}' };
    }
    const headers = { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300' };
    return method === 'HEAD'
      ? { status: 200, headers }
      : { status: 200, headers, body: this.signer.jwksJson };
  }
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
