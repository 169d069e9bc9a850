/**
 * Interceptors bound to one interface of the card, applied by the transport made for it: the
 * interface's tenant on every request (CLI-CARD-3) and, on gRPC, the HTTP bindings' call habits.
 */
import { A2ATimeoutError } from '../errors/client-errors.js';
import type { ClientInterceptor } from './interceptor.js';

/** Sets `tenant` on every request to exactly the interface's tenant, or removes it (CLI-CARD-3). */
export function tenantInterceptor(tenant: string | undefined): ClientInterceptor {
  return (next) => (call) => {
    const { tenant: _old, ...rest } = call.request as { tenant?: string };
    void _old;
    const request = (tenant ? { ...rest, tenant } : rest) as typeof call.request;
    return next({ ...call, request });
  };
}

/**
 * Gives gRPC the HTTP transports' call habits: a default deadline on unary calls (a dead peer
 * must not hang a call forever) and a timeout reported as {@link A2ATimeoutError}. Streams keep
 * no deadline: they may rightly last longer than any call timeout.
 */
export function grpcCallDefaults(defaultTimeoutMs: number): ClientInterceptor {
  return (next) => async (call) => {
    if (call.operation.streaming) return next(call);
    const timeoutMs = call.options.timeoutMs ?? defaultTimeoutMs;
    try {
      return await next({ ...call, options: { ...call.options, timeoutMs } });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError' && !call.options.signal?.aborted) {
        throw new A2ATimeoutError(`no gRPC response within ${timeoutMs} ms`, timeoutMs);
      }
      throw error;
    }
  };
}
