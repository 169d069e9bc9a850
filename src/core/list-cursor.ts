/**
 * Opaque ListTasks page tokens. A token names the last task of the previous page (its status
 * time and id: the next page starts strictly after it, see TaskStore.list for the guarantee
 * that gives under concurrent changes) and is
 * bound by an HMAC to the caller (tenant, principal) and the filters, so a tampered token,
 * one minted for another caller or one reused with other filters is refused (SRV-LIST-9).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ListPosition } from './stores/task-store.js';

/** What a token is bound to: the caller and the filters. */
export interface CursorBinding {
  readonly tenant: string;
  readonly principal: string;
  readonly contextId: string | undefined;
  readonly status: string | undefined;
  readonly statusTimeAtOrAfterMs: number | undefined;
}

/** Signs and verifies page tokens with one secret. */
export class ListCursorCodec {
  readonly #secret: Buffer;

  /** `secret`: share one across replicas; a random one is made when absent. */
  constructor(secret?: string | Uint8Array) {
    this.#secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
  }

  /** The token that continues after `position`. */
  encode(binding: CursorBinding, position: ListPosition): string {
    const payload = Buffer.from(JSON.stringify([position.statusTimeMs, position.id])).toString('base64url');
    return `${payload}.${this.#mac(binding, payload)}`;
  }

  /** The position in `token`, or undefined when it is malformed, tampered or bound elsewhere. */
  decode(binding: CursorBinding, token: string): ListPosition | undefined {
    const dot = token.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#mac(binding, payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (
        Array.isArray(value) &&
        value.length === 2 &&
        typeof value[0] === 'number' &&
        Number.isFinite(value[0]) &&
        typeof value[1] === 'string'
      ) {
        return { statusTimeMs: value[0], id: value[1] };
      }
    } catch {
      // fall through: not a token of ours
    }
    return undefined;
  }

  #mac(binding: CursorBinding, payload: string): string {
    const bound = JSON.stringify([
      binding.tenant,
      binding.principal,
      binding.contextId ?? null,
      binding.status ?? null,
      binding.statusTimeAtOrAfterMs ?? null,
      payload,
    ]);
    return createHmac('sha256', this.#secret).update(bound).digest('base64url');
  }
}
