/** Who is calling and for which tenant: filled by a binding (and auth) for each request. */

/** An authenticated (or anonymous) caller. Every task is owned by one principal. */
export interface Principal {
  /** Stable identifier; `anonymous` when the server has no authentication. */
  readonly id: string;
  /** Granted scopes, when the authenticator knows them. */
  readonly scopes?: readonly string[];
  /** Claims or attributes from the credential (JWT claims, API-key owner, ...). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** The principal used when no authenticator is configured. */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous' });

/** Per-request facts every operation needs, independent of the binding. */
export interface ServerCallContext {
  /** Tenant from the REST path prefix, `params.tenant` or the gRPC `tenant` field; `""` for none. */
  readonly tenant: string;
  /** The authenticated caller. */
  readonly principal: Principal;
  /** Extension URIs the client asked for (A2A-Extensions). */
  readonly requestedExtensions: readonly string[];
  /** Extensions the server activated for this call; bindings echo them in A2A-Extensions. */
  readonly activatedExtensions: Set<string>;
  /** The protocol version the request is served with (`1.0`). */
  readonly protocolVersion: string;
  /** Aborted when the client goes away. Operations must not cancel tasks because of it. */
  readonly signal?: AbortSignal;
}

/** Builds a call context with defaults for anything not given. */
export function createCallContext(init: Partial<ServerCallContext> = {}): ServerCallContext {
  return {
    tenant: init.tenant ?? '',
    principal: init.principal ?? ANONYMOUS,
    requestedExtensions: init.requestedExtensions ?? [],
    activatedExtensions: init.activatedExtensions ?? new Set(),
    protocolVersion: init.protocolVersion ?? '1.0',
    ...(init.signal ? { signal: init.signal } : {}),
  };
}
