// The server of the disconnect checks on hosts that run it out of the test's process (Bun, Deno,
// workerd, Next.js). It prints what the test watches for: `stream-aborted<label>` when the
// signal of a SendStreamingMessage call is aborted (its client went away), `stream-ended<label>`
// when the server stops reading that call's events (it stopped streaming). `hold` keeps its
// task WORKING until the task is canceled (at most 30 s).
import { createA2AServer } from '../../dist/server/index.js';

/** The server; `label` tells its lines apart when several run in one process (workerd). */
export function disconnectServer({ label = '', keepAliveMs } = {}) {
  const watchStreams = (next) => async (call) => {
    if (call.method !== 'SendStreamingMessage') return next(call);
    call.ctx.signal?.addEventListener('abort', () => console.log(`stream-aborted${label}`), { once: true });
    const events = await next(call);
    // Wrapped by hand, not by an async generator: the server's return() must reach the inner
    // iterator while a next() is still pending (a generator would queue it behind that next()).
    return {
      [Symbol.asyncIterator]() {
        const inner = events[Symbol.asyncIterator]();
        let ended = false;
        const end = () => {
          if (!ended) console.log(`stream-ended${label}`);
          ended = true;
        };
        return {
          next: async () => {
            const result = await inner.next();
            if (result.done) end();
            return result;
          },
          return: async (value) => {
            end();
            return (await inner.return?.(value)) ?? { done: true, value };
          },
        };
      },
    };
  };
  return createA2AServer({
    store: 'memory',
    keepAliveMs,
    interceptors: [watchStreams],
    card: {
      name: 'disconnect',
      description: 'reports streams whose client went away',
      version: '1.0.0',
      skills: [{ id: 'hold', name: 'hold', description: 'holds', tags: ['test'] }],
    },
    agent: async (ctx, task) => {
      await task.working('holding');
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        ctx.signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
      });
    },
  });
}
