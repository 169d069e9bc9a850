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
    return { type: error.name, message: `${error.message}${hint}` };
  }
  if (error instanceof Error) return { type: error.name, message: error.message };
  return { type: 'Error', message: String(error) };
}
