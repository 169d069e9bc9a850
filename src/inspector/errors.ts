/** Errors as the inspector's API reports them: a type, one sentence, the A2A code if any. */
import { A2AError } from '../errors/a2a-error.js';
import { A2ATransportError } from '../errors/client-errors.js';
import type { ApiError } from './api-types.js';

/** `error` as the page shows it. A network failure says what it was (refused, unknown host). */
export function describeError(error: unknown): ApiError {
  if (error instanceof A2AError) return { type: error.name, message: error.message, code: error.code };
  if (error instanceof A2ATransportError) {
    const hint =
      error.networkCode === 'ECONNREFUSED'
        ? ' (nothing listens there: is the agent running?)'
        : error.networkCode === 'ENOTFOUND'
          ? ' (unknown host)'
          : '';
    const root = rootCause(error);
    const why = root && !error.message.includes(root) ? ` (${root})` : '';
    return { type: error.name, message: `${error.message}${why}${hint}` };
  }
  if (error instanceof Error) return { type: error.name, message: error.message };
  return { type: 'Error', message: String(error) };
}

/** The message of the innermost cause of `error` (fetch hides the reason two levels down). */
function rootCause(error: Error): string | undefined {
  let current: unknown = error.cause;
  let message: string | undefined;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  return message;
}
