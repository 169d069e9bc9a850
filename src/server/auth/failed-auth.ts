/**
 * Failed authentication is observable and throttled (issue 27, deliver 2; SRV-TRUST-10): each
 * refusal is logged (scheme, kind, reason, remote address: never the credential) and counted
 * (`a2a.server.auth.failures`), and an address that keeps presenting bad credentials is
 * refused with 429 before its authenticators run, for a while. The state is one token bucket per
 * address in a bounded map.
 */
import { metrics, type Counter } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ResourceExhaustedError } from '../../errors/a2a-error.js';
import { RateLimiter } from '../limits/rate-limit.js';
import { INSTRUMENTATION_SCOPE } from '../observability/metrics.js';
import type { AuthFailure } from './types.js';

/** The `security.failedAuth` option: how many bad credentials an address may present. */
export interface FailedAuthOptions {
  /** Bad credentials one address may present at once before it is refused. @default 30 */
  burst?: number;
  /** Bad credentials per minute an address regains. @default 30 */
  perMinute?: number;
  /** Most addresses tracked at once (least recently seen dropped). @default 10000 */
  maxAddresses?: number;
}

/** Watches authentication outcomes of one server. */
export interface FailedAuthGuard {
  /** Throws ResourceExhaustedError (429, Retry-After) while `address` is throttled. */
  admit(address: string | undefined): void;
  /** Records a refusal: logged, counted, and charged to the address when a credential was bad. */
  failed(failure: AuthFailure, address: string | undefined): void;
}

/** Where refusals are reported. */
export interface FailedAuthReporting {
  logger?: Logger | undefined;
}

/** Builds the guard; `false` keeps logging and counting but never throttles. */
export function createFailedAuthGuard(
  options: FailedAuthOptions | false | undefined,
  reporting: FailedAuthReporting = {},
): FailedAuthGuard {
  const limiter =
    options === false
      ? undefined
      : new RateLimiter({
          ratePerSecond: (options?.perMinute ?? 30) / 60,
          burst: options?.burst ?? 30,
          maxKeys: options?.maxAddresses ?? 10_000,
        });
  const maxAddresses = (options && options.maxAddresses) || 10_000;
  const counter: Counter = metrics
    .getMeter(INSTRUMENTATION_SCOPE)
    .createCounter('a2a.server.auth.failures', { description: 'Refused authentications' });
  const logger = reporting.logger;
  // The limiter holds bad-credential charges; a separate flag per address would double the map.
  const locked = new Map<string, number>();
  return {
    admit(address) {
      if (!limiter || address === undefined) return;
      const until = locked.get(address);
      if (until === undefined) return;
      const now = Date.now();
      if (now >= until) {
        locked.delete(address);
        return;
      }
      counter.add(1, { 'a2a.auth.outcome': 'throttled' });
      throw new ResourceExhaustedError('too many failed authentications from this address; retry later', {
        retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
      });
    },
    failed(failure, address) {
      counter.add(1, { 'a2a.auth.outcome': failure.kind, 'a2a.auth.scheme': failure.scheme });
      logger?.warn(
        {
          event: 'auth.failed',
          scheme: failure.scheme,
          kind: failure.kind,
          reason: failure.message,
          ...(address !== undefined ? { remoteAddress: address } : {}),
        },
        'authentication failed',
      );
      // Only a presented, wrong credential is charged: a first call without one is how a
      // client learns the challenge, and a missing scope is no guess.
      if (!limiter || address === undefined || failure.kind !== 'invalid') return;
      const decision = limiter.take(address);
      if (decision.ok) return;
      if (locked.size >= maxAddresses) {
        const oldest = locked.keys().next();
        if (!oldest.done) locked.delete(oldest.value);
      }
      locked.set(address, Date.now() + decision.retryAfterSeconds * 1000);
    },
  };
}
