/**
 * What the delivery worker does on its own event loop before and after a POST: turning claimed
 * deliveries into {@link SendJob}s (the config read at delivery time, the address checked, the
 * body in the config's protocol version, the headers), and a sender's result into the
 * outbox settlement.
 */
import type { StreamResponse, Task } from '../../model/schema.js';
import { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION, stampEvent } from '../../core/generation.js';
import type { PushConfigStore, StoredPushConfig } from '../../core/stores/push-config-store.js';
import type { TaskScope } from '../../core/stores/task-store.js';
import { isV03PushVersion, pushPayloadFor, type PushPayload } from '../../bindings/compat-v03/push.js';
import { PUSH_ID_HEADER } from '../../core/push/notification-signing.js';
import type { PushDelivery, PushSettlement } from '../../core/push/outbox.js';
import type { RetryPolicy } from '../../core/push/retry-policy.js';
import {
  literalWebhookAddress,
  parseWebhookUrl,
  resolveWebhook,
  WebhookAddressError,
  type AddressPolicy,
  type CheckedAddress,
  type HostResolver,
} from './address-guard.js';
import type { SendJob, SendResult } from './webhook-sender.js';

/** The header that carries the config's token (N11). */
export const PUSH_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** Reads a task as a client would see it (GetTask), for the notification bodies that carry the whole task. */
export type PushTaskReader = (scope: TaskScope, taskId: string) => Promise<Task | undefined>;

/**
 * One claim of a delivery on its way: being prepared, then sent (`sent`) until its result
 * settles it. A delivery settled for a retry can be claimed again before that settlement is
 * answered, so a delivery may have two flights at once: each is its own object, with its claim's
 * lease owner, and the settlement of one never touches the other.
 */
export interface Flight {
  readonly delivery: PushDelivery;
  /** The lease owner of the claim that took it: only it settles or renews the delivery. */
  readonly lease: string;
  readonly started: number;
  sent: boolean;
}

/** What an attempt led to: the record for the operator and the settlement. */
export type Completion = readonly [Flight, { status?: number; error?: string }, PushSettlement];

/** One batch, prepared: the jobs to send, the deliveries settled without a POST, the failed reads. */
export interface PreparedBatch {
  readonly jobs: SendJob[];
  readonly done: Completion[];
  /** Deliveries whose config could not be read (a store error): left claimed until the lease ends. */
  readonly failed: Flight[];
}

/** Prepares deliveries for a sender. */
export class DeliveryPreparer {
  readonly #configs: PushConfigStore;
  readonly #policy: AddressPolicy;
  readonly #resolve: HostResolver;
  readonly #retry: RetryPolicy;
  /** Where configs registered by v0.3 clients get the task they are sent (SRV-COMPAT-8). */
  readTask: PushTaskReader | undefined;
  /** The A2A 1.1 draft support is on: configs that opted in get `generation` (GEN-6). */
  readonly #generation: boolean;

  constructor(
    configs: PushConfigStore,
    policy: AddressPolicy,
    resolve: HostResolver,
    retry: RetryPolicy,
    readTask: PushTaskReader | undefined,
    generation = false,
  ) {
    this.#configs = configs;
    this.#policy = policy;
    this.#resolve = resolve;
    this.#retry = retry;
    this.readTask = readTask;
    this.#generation = generation;
  }

  /** Prepares `flights`; `onError` hears the store failures (their flights come back in `failed`). */
  async prepare(flights: readonly Flight[], onError: (error: unknown) => void): Promise<PreparedBatch> {
    const batch: PreparedBatch = { jobs: [], done: [], failed: [] };
    const configs = await Promise.allSettled(
      flights.map(({ delivery }) =>
        this.#configs.get(
          { tenant: delivery.tenant, owner: delivery.owner },
          delivery.taskId,
          delivery.configId,
        ),
      ),
    );
    const take = (prepared: SendJob | Completion): void => {
      if (Array.isArray(prepared)) batch.done.push(prepared as Completion);
      else batch.jobs.push(prepared as SendJob);
    };
    const fail = (flight: Flight, error: unknown): void => {
      onError(error);
      batch.failed.push(flight);
    };
    // Most notifications are ready without a wait (an IP literal, a v1.0 body): only the others await.
    let waits: Promise<void>[] | undefined;
    for (let i = 0; i < flights.length; i++) {
      const flight = flights[i]!;
      const config = configs[i]!;
      if (config.status === 'rejected') {
        fail(flight, config.reason);
        continue;
      }
      try {
        const prepared = this.#prepare(flight, config.value);
        if (prepared instanceof Promise) {
          (waits ??= []).push(prepared.then(take, (error: unknown) => fail(flight, error)));
        } else take(prepared);
      } catch (error) {
        fail(flight, error);
      }
    }
    if (waits) await Promise.all(waits);
    return batch;
  }

  /** The settlement of a sender's `result` for `flight`. */
  completionOf(flight: Flight, result: SendResult): Completion {
    // Stopped by close(): given back, due at once, for the next start.
    if (result.code === 'ABORTED') return interrupted(flight);
    let error: string | undefined;
    if (result.error !== undefined) error = `${result.code ? `${result.code}: ` : ''}${result.error}`;
    else if (result.status === undefined || result.status < 200 || result.status >= 300) {
      error = `the webhook answered HTTP ${result.status ?? 0}`;
    }
    const outcome = {
      ...(result.status !== undefined ? { status: result.status } : {}),
      ...(error !== undefined ? { error } : {}),
    };
    return [
      flight,
      outcome,
      error === undefined ? { outcome: 'delivered' } : this.#retry.afterFailure(flight.delivery, error),
    ];
  }

  /**
   * The job that sends `flight`, or its completion when it cannot be sent (no config, a refused
   * address); a promise only when something must be waited for (a host name to resolve, a
   * task to read for a v0.3 body).
   */
  #prepare(
    flight: Flight,
    config: StoredPushConfig | undefined,
  ): SendJob | Completion | Promise<SendJob | Completion> {
    const delivery = flight.delivery;
    if (!config) {
      return [
        flight,
        { error: 'the push config was deleted' },
        { outcome: 'dead', error: 'the push config was deleted before delivery' },
      ];
    }
    const refused = (error: unknown): Completion => {
      if (!(error instanceof WebhookAddressError)) throw error;
      return [
        flight,
        { error: error.message },
        error.transient
          ? this.#retry.afterFailure(delivery, error.message)
          : { outcome: 'dead', error: error.message },
      ];
    };
    try {
      const url = parseWebhookUrl(config.url, this.#policy);
      const literal = literalWebhookAddress(url, this.#policy);
      const v03 = isV03PushVersion(config.protocolVersion) && this.readTask !== undefined;
      if (literal && !v03)
        return this.#job(config, delivery, url, literal, this.#eventPayload(config, delivery));
      return (async () => {
        const address = literal ?? (await resolveWebhook(url, this.#policy, this.#resolve));
        return this.#job(config, delivery, url, address, await this.#payload(config, delivery));
      })().catch(refused);
    } catch (error) {
      return refused(error);
    }
  }

  #job(
    config: StoredPushConfig,
    delivery: PushDelivery,
    url: URL,
    address: CheckedAddress,
    payload: GenerationPayload,
  ): SendJob {
    const headers = headersOf(config, delivery, payload);
    if (payload.generation) {
      // GEN-6: the POST names what the body speaks, as the registering call named it.
      if (config.protocolVersion === DRAFT_PROTOCOL_VERSION) headers['A2A-Version'] = DRAFT_PROTOCOL_VERSION;
      else headers['A2A-Extensions'] = GENERATION_EXTENSION;
    }
    return {
      id: delivery.id,
      url: url.href,
      address: address.address,
      family: address.family,
      headers,
      body: payload.body,
    };
  }

  /**
   * The body in the form the config was registered with (SRV-COMPAT-8): the outbox's v1.0
   * StreamResponse as is, or for a v0.3 config the v0.3 form, built now from the task as it is.
   */
  async #payload(config: StoredPushConfig, delivery: PushDelivery): Promise<GenerationPayload> {
    const version = config.protocolVersion;
    if (!isV03PushVersion(version)) return this.#eventPayload(config, delivery);
    const task = this.readTask
      ? await this.readTask({ tenant: delivery.tenant, owner: delivery.owner }, delivery.taskId)
      : undefined;
    return pushPayloadFor(version, delivery.payload, task);
  }

  /**
   * The body made from the change alone. A v1.0 config's is the outbox's StreamResponse byte
   * for byte, with the change's generation added when the config opted in to the A2A 1.1
   * draft, the feature is on and the delivery knows its generation (rows enqueued before it
   * was recorded do not) (GEN-6). A v0.3 config's (no task to read) is the change in v0.3 form.
   */
  #eventPayload(config: StoredPushConfig, delivery: PushDelivery): GenerationPayload {
    const payload = pushPayloadFor(config.protocolVersion, delivery.payload);
    const opted = this.#generation && config.generation === true && !isV03PushVersion(config.protocolVersion);
    if (!opted || delivery.generation === undefined) return payload;
    const event = JSON.parse(delivery.payload) as StreamResponse;
    return {
      ...payload,
      body: JSON.stringify(stampEvent(event, delivery.generation)),
      generation: true,
    };
  }
}

/** A body, and whether it carries the change's generation (then the POST says so). */
interface GenerationPayload extends PushPayload {
  readonly generation?: boolean;
}

/** The headers of a notification; the sender adds the signature. */
function headersOf(
  config: StoredPushConfig,
  delivery: PushDelivery,
  payload: PushPayload,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': payload.contentType,
    'user-agent': 'a2a-kit push',
    [PUSH_ID_HEADER]: delivery.id,
  };
  const auth = config.authentication;
  if (auth?.scheme)
    headers.authorization = auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme;
  if (config.token) headers[PUSH_TOKEN_HEADER] = config.token;
  return headers;
}

/** A delivery stopped by close(): given back, due at once (one attempt recorded). */
export function interrupted(flight: Flight): Completion {
  return [
    flight,
    { error: 'the server stopped' },
    { outcome: 'retry', nextAttemptAtMs: Date.now(), error: 'interrupted: the server stopped' },
  ];
}
