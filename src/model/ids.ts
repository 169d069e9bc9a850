import { randomUUID } from 'node:crypto';

/** A new server-minted id (task, context, push config): a random UUID (G8). */
export function newId(): string {
  return randomUUID();
}

/** Longest id a client may send (messageId, taskId, contextId, config id). */
export const MAX_ID_LENGTH = 256;
