/**
 * Credentials as interceptors: each attempt asks the auth handler for its headers (and query
 * parameters), once the interface it goes to may have them (CLI-AUTH-3), and a call refused as
 * unauthenticated is sent once more when the handler says a retry may succeed (an OAuth token
 * refreshed after a 401, CLI-AUTH-1).
 */
import { A2AError } from '../errors/index.js';
import type { A2AMethod } from '../model/operations.js';
import type { ResponseOf } from '../bindings/transport.js';
import { apiKeyAuth, bearerAuth, type AuthContext, type AuthHandler } from './auth.js';
import type { A2AClientOptions } from './options.js';
import {
  openStream,
  reopenBeforeFirstEvent,
  streamReply,
  type ClientCall,
  type ClientInterceptor,
} from './interceptor.js';

/** The cards an auth handler is told about: the one in use and, when its signature was checked, that one. */
export type AuthCards = () => Omit<AuthContext, 'method'>;

/**
 * Adds `auth`'s credentials to every attempt; `cards` gives the card its schemes are read from.
 * `mayCarry` throws when the attempt's interface may not be sent credentials: the call then
 * fails before the handler is asked (no token is fetched) and before anything is sent.
 */
export function credentialsInterceptor(
  auth: AuthHandler,
  cards: AuthCards,
  mayCarry: (call: ClientCall) => void = () => undefined,
): ClientInterceptor {
  return (next) => async (call) => {
    mayCarry(call);
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

/**
 * The headers of the card fetch in `A2AClient.connect`: `headers`, the credentials of
 * `auth` (asked without a card, since none is known yet), then `card.headers`, which win.
 */
export async function cardFetchHeaders(options: A2AClientOptions): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...options.headers };
  const handler = authHandlerOf(options.auth);
  if (handler) {
    const creds = await handler.credentials({ method: 'GetAgentCard' });
    Object.assign(headers, creds.headers);
  }
  return { ...headers, ...options.card?.headers };
}

/** The handler of the `auth` option (its shorthands made handlers). */
export function authHandlerOf(a: A2AClientOptions['auth']): AuthHandler | undefined {
  return !a
    ? undefined
    : 'credentials' in a
      ? a
      : 'bearer' in a
        ? bearerAuth(a.bearer)
        : apiKeyAuth(a.apiKey);
}
