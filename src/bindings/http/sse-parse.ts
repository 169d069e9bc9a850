/**
 * Reading Server-Sent Events on the client (G13): multi-line `data`, comments and
 * keep-alives are accepted; a stream that ends in the middle of an event, breaks, or stays
 * silent longer than the idle timeout is an error, never a hang.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  A2AInvalidResponseError,
  A2ATimeoutError,
  A2ATransportError,
  networkCode,
} from '../../errors/client-errors.js';

/** Options of {@link readSseData}. */
export interface SseReadOptions {
  /** Fail when no byte (event or comment) arrives for this long. @default 60000 */
  idleTimeoutMs?: number;
  /** Stops reading; the body is cancelled. */
  signal?: AbortSignal;
}

/**
 * Yields the `data` of each event of an SSE body, in order. Breaking out of the loop
 * cancels the body (closes the connection).
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<string, void, undefined> {
  const idleMs = options.idleTimeoutMs ?? 60_000;
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    for (;;) {
      while (queue.length > 0) yield (queue.shift() as EventSourceMessage).data;
      if (options.signal?.aborted) throw options.signal.reason;
      const chunk = await new Promise<{ done: boolean; value?: Uint8Array }>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new A2ATimeoutError(`stream idle for more than ${idleMs} ms`, idleMs)),
          idleMs,
        );
        onAbort = () => reject(options.signal?.reason);
        options.signal?.addEventListener('abort', onAbort, { once: true });
        reader.read().then(
          (r) => resolve(r),
          (error: unknown) =>
            reject(
              error instanceof A2ATimeoutError
                ? error
                : new A2ATransportError(`stream broke: ${describe(error)}`, {
                    cause: error,
                    networkCode: networkCode(error),
                  }),
            ),
        );
      }).finally(() => {
        clearTimeout(timer);
        if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      });
      if (chunk.done) break;
      if (chunk.value) parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
    parser.feed(decoder.decode());
    while (queue.length > 0) yield (queue.shift() as EventSourceMessage).data;
    // Ending the last line and the event: if that completes an event, the server never did.
    parser.feed('\n\n');
    if (queue.length > 0) {
      throw new A2AInvalidResponseError(
        'truncated-stream',
        'the event stream ended in the middle of an event (no blank line after its data)',
      );
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

function describe(error: unknown): string {
  const code = networkCode(error);
  const msg = error instanceof Error ? error.message : String(error);
  return code ? `${msg} (${code})` : msg;
}
