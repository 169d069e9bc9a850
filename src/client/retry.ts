/**
 * Retries: which failures are worth another try, the backoff between tries, and the retry
 * interceptor (unary operations the table marks safe to repeat, capped exponential backoff).
 */
import { A2AError } from '../errors/index.js';
import { A2AInvalidResponseError, A2ATimeoutError, A2ATransportError } from '../errors/client-errors.js';
import { isSafeToRetry } from '../model/operations.js';
import type { ClientInterceptor } from './interceptor.js';

/** Retry policy for safe operations. */
export interface RetryOptions {
  /** Total attempts including the first. @default 3 */
  attempts?: number;
  /** @default 200 */
  baseDelayMs?: number;
  /** @default 5000 */
  maxDelayMs?: number;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(t);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/** Capped exponential backoff with full jitter. */
export function backoff(attempt: number, baseMs: number, maxMs: number): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
}

/**
 * The wait before reconnection step `attempt` (1-based): capped exponential backoff with
 * "equal jitter" (between half and all of the step's delay), so that a number of steps is
 * also a known minimum of time survived.
 */
export function reconnectDelay(attempt: number, baseMs: number, maxMs: number): number {
  const step = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return step / 2 + (Math.random() * step) / 2;
}

/** True for failures worth retrying: refused/reset connections, 502/503/504, UNAVAILABLE. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof A2AError) return error.code === 'Unavailable';
  if (error instanceof A2ATransportError) {
    if (error.status !== undefined) return [502, 503, 504].includes(error.status);
    return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN'].includes(
      error.networkCode ?? '',
    );
  }
  return false;
}

/** Failures a follow reconnects after: the network, timeouts, cut streams, UNAVAILABLE. */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof A2ATransportError ||
    error instanceof A2ATimeoutError ||
    (error instanceof A2AInvalidResponseError && error.reason === 'truncated-stream') ||
    isRetryable(error)
  );
}

/**
 * Retries a unary call that is safe to repeat (the operation table, SendMessage keeping its
 * messageId) after a retryable failure, with capped exponential backoff and jitter. Streams
 * are never retried here: the resilient helpers resubscribe instead.
 */
export function retryInterceptor(options: RetryOptions | false = {}): ClientInterceptor {
  const policy = options === false ? { attempts: 1 } : options;
  const baseMs = policy.baseDelayMs ?? 200;
  const maxMs = policy.maxDelayMs ?? 5000;
  return (next) => async (call) => {
    const safe = !call.operation.streaming && isSafeToRetry(call.method, call.request);
    const attempts = safe ? Math.max(1, Math.min(call.maxAttempts ?? Infinity, policy.attempts ?? 3)) : 1;
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(call);
      } catch (error) {
        if (call.options.signal?.aborted || attempt + 1 >= attempts || !isRetryable(error)) throw error;
        await sleep(backoff(attempt, baseMs, maxMs), call.options.signal);
      }
    }
  };
}
