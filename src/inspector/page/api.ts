/** The page's calls to the inspector's backend: JSON requests and SSE streams, token attached. */
import type { ApiError } from '../api-types.js';

const params = new URLSearchParams(location.search);
/** The run's token, from the address `a2a inspect` printed. */
export const TOKEN = params.get('token') ?? '';
/** The agent to open connected (`?agent=`). */
export const AGENT_PARAM = params.get('agent') ?? '';

const HEADERS = { 'x-inspector-token': TOKEN, 'content-type': 'application/json' };

/** Thrown when the backend itself refuses or fails (not an agent error: those come as values). */
export class BackendError extends Error {}

async function answer<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: ApiError }).error?.message ?? text;
    } catch {
      // plain text answer
    }
    throw new BackendError(`inspector backend: HTTP ${response.status}: ${message}`);
  }
  return JSON.parse(text) as T;
}

/** GET a JSON resource of the backend. */
export async function get<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: HEADERS }));
}

/** POST JSON to the backend. */
export async function post<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(await fetch(path, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) }));
}

/**
 * Reads an SSE answer of the backend (fetch, since EventSource cannot send the token header),
 * calling `onEvent(name, data)` per event. Resolves when the stream ends; rejects when it breaks.
 */
export async function readSse(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal },
  onEvent: (name: string, data: unknown) => void,
): Promise<void> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: HEADERS,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  if (!response.ok || !response.body) await answer(response);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length === 0) continue;
      try {
        onEvent(name, JSON.parse(data.join('\n')));
      } catch (error) {
        onEvent('error', {
          type: 'PageError',
          message: `bad event from the backend: ${(error as Error).message}`,
        });
      }
    }
  }
}
