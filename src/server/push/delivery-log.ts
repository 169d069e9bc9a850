/**
 * One log line per push delivery attempt (issue 27: `pushLogger` was never wired): the outbox the
 * delivery worker drains, seen through a wrapper that remembers what was claimed and reports
 * each settled attempt to the server's {@link PushLogger}. The wrapper changes nothing the
 * worker or the store does; the config's URL is read only for a line that will be written.
 */
import type { PushAttempt, PushDelivery, PushOutbox, PushSettlement } from '../../core/push/outbox.js';
import type { PushConfigStore } from '../../core/stores/push-config-store.js';
import type { PushDeliveryOutcome, PushLogger } from '../observability/logging.js';

/** Claims remembered at most (a worker holds `concurrency`; a lost lease is never settled here). */
const MAX_REMEMBERED = 4096;

const OUTCOME: Record<PushSettlement['outcome'], PushDeliveryOutcome['outcome']> = {
  delivered: 'delivered',
  retry: 'retrying',
  dead: 'failed',
};

/** `outbox` with every settled attempt reported to `log`; the same object when nothing logs. */
export function loggedOutbox(
  outbox: PushOutbox,
  configs: PushConfigStore,
  log: PushLogger,
  onError: (error: unknown) => void,
): PushOutbox {
  if (log.wants && !log.wants('delivered') && !log.wants('retrying') && !log.wants('failed')) return outbox;
  const claimed = new Map<string, PushDelivery>();
  const report = async (delivery: PushDelivery, attempt: PushAttempt, settlement: PushSettlement) => {
    const outcome = OUTCOME[settlement.outcome];
    if (log.wants && !log.wants(outcome)) return;
    const config = await configs.get(
      { tenant: delivery.tenant, owner: delivery.owner },
      delivery.taskId,
      delivery.configId,
    );
    const error = settlement.outcome === 'delivered' ? undefined : (attempt.error ?? settlement.error);
    log.log({
      taskId: delivery.taskId,
      // The config may be gone (deleted meanwhile); the line still says which one it was.
      url: config?.url ?? `(config ${delivery.configId}, deleted)`,
      outcome,
      attempt: delivery.attempts + 1,
      durationMs: attempt.durationMs,
      ...(attempt.status !== undefined ? { httpStatus: attempt.status } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  };
  const claim: PushOutbox['claim'] = async (workerId, limit, leaseMs) => {
    const deliveries = await outbox.claim(workerId, limit, leaseMs);
    for (const delivery of deliveries) {
      claimed.delete(delivery.id);
      claimed.set(delivery.id, delivery);
    }
    while (claimed.size > MAX_REMEMBERED) claimed.delete(claimed.keys().next().value as string);
    return deliveries;
  };
  const settle: PushOutbox['settle'] = async (id, workerId, attempt, settlement) => {
    const settled = await outbox.settle(id, workerId, attempt, settlement);
    const delivery = claimed.get(id);
    claimed.delete(id);
    if (settled && delivery) report(delivery, attempt, settlement).catch(onError);
    return settled;
  };
  // Everything else is the outbox's own (bound to it: stores keep private fields).
  return new Proxy(outbox, {
    get(target, prop) {
      if (prop === 'claim') return claim;
      if (prop === 'settle') return settle;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
