/**
 * A small bounded SSE load generator: `connections` workers each open one streaming POST
 * after another until the duration is over, counting `data:` events as they arrive.
 */
import { Agent, request } from 'node:http';
import { randomUUID } from 'node:crypto';

/** One SSE load run. */
export interface SseLoadOptions {
  url: string;
  /** Request body; each `[<id>]` is replaced by a fresh UUID per request. */
  body: string;
  headers: Record<string, string>;
  connections: number;
  durationMs: number;
  /** A stream counts as good only if its last event contains this string. */
  expectLast?: string;
  /** Per-stream timeout. */
  timeoutMs?: number;
}

/** Totals of one SSE load run. */
export interface SseLoadResult {
  events: number;
  streams: number;
  badStreams: number;
  errors: number;
  seconds: number;
  eventsPerSecond: number;
}

interface StreamOutcome {
  events: number;
  good: boolean;
}

function oneStream(agent: Agent, options: SseLoadOptions): Promise<StreamOutcome> {
  const body = options.body.replaceAll('[<id>]', () => randomUUID());
  const url = new URL(options.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(body) },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        let events = 0;
        let tail = '';
        let lastEvent = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const lines = (tail + chunk).split('\n');
          tail = lines.pop() ?? '';
          for (const line of lines) {
            if (line.startsWith('data:')) {
              events++;
              lastEvent = line;
            }
          }
        });
        res.on('end', () => {
          const good =
            res.statusCode === 200 &&
            (options.expectLast === undefined || lastEvent.includes(options.expectLast));
          resolve({ events, good });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('stream timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the load and reports events per second over the whole window. */
export async function sseLoad(options: SseLoadOptions): Promise<SseLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const started = performance.now();
  const deadline = started + options.durationMs;
  const totals = { events: 0, streams: 0, badStreams: 0, errors: 0 };
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      try {
        const outcome = await oneStream(agent, options);
        totals.events += outcome.events;
        totals.streams++;
        if (!outcome.good) totals.badStreams++;
      } catch {
        totals.errors++;
        // Back off a little so a refusing server does not turn this into a busy loop.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { ...totals, seconds, eventsPerSecond: totals.events / seconds };
}
