/**
 * Credentials as interceptors: each attempt asks the auth handler for its headers (and query
 * parameters), and a call refused as unauthenticated is sent once more when the handler says a
 * retry may succeed (an OAuth token refreshed after a 401, CLI-AUTH-1).
 */
import { A2AError } from '../errors/index.js';
import type { A2AMethod } from '../model/operations.js';
import type { ResponseOf } from '../bindings/transport.js';
import type { AuthContext, AuthHandler } from './auth.js';
import {
  openStream,
  reopenBeforeFirstEvent,
  streamReply,
  type ClientCall,
  type ClientInterceptor,
} from './interceptor.js';

/** The cards an auth handler is told about: the one in use and, when its signature was checked, that one. */
export type AuthCards = () => Omit<AuthContext, 'method'>;

/** Adds `auth`'s credentials to every attempt; `cards` gives the card its schemes are read from. */
export function credentialsInterceptor(auth: AuthHandler, cards: AuthCards): ClientInterceptor {
  return (next) => async (call) => {
    const creds = await auth.credentials({ ...cards(), method: call.method });
    const options = { ...call.options, headers: { ...call.options.headers, ...creds.headers } };
    if (creds.query) options.query = { ...options.query, ...creds.query };
    return next({ ...call, options });
  };
}

/**
 * After an `Unauthenticated` answer, sends the call once more when `auth.onUnauthorized`
 * returns true. A stream is sent again only when it failed before its first event.
 */
export function reauthInterceptor(auth: AuthHandler, cards: AuthCards): ClientInterceptor {
  const mayRetry = async (error: unknown, method: A2AMethod): Promise<boolean> =>
    error instanceof A2AError &&
    error.code === 'Unauthenticated' &&
    !!auth.onUnauthorized &&
    (await auth.onUnauthorized({ ...cards(), method }));
  return (next) =>
    <M extends A2AMethod>(call: ClientCall<M>): Promise<ResponseOf<M>> => {
      if (!auth.onUnauthorized) return next(call);
      if (call.operation.streaming) {
        let retried = false;
        const events = reopenBeforeFirstEvent(
          () => openStream(next(call)),
          async (error) => !retried && (retried = await mayRetry(error, call.method)),
        );
        return streamReply<M>(events);
      }
      return next(call).catch(async (error: unknown) => {
        if (call.options.signal?.aborted || !(await mayRetry(error, call.method))) throw error;
        return next(call);
      });
    };
}
