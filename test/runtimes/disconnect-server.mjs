// A server for the disconnect check on Bun and Deno: prints `stream-aborted` when the signal of
// a SendStreamingMessage call is aborted (its client went away). `hold` waits to be canceled.
import { createA2AServer } from '../../dist/server/index.js';

const watchStreams = (next) => (call) => {
  if (call.method === 'SendStreamingMessage') {
    call.ctx.signal?.addEventListener('abort', () => console.log('stream-aborted'), { once: true });
  }
  return next(call);
};

const server = createA2AServer({
  store: 'memory',
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

if (globalThis.Bun) {
  const listening = globalThis.Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: server.fetch });
  console.log(`listening at http://127.0.0.1:${listening.port}`);
} else {
  globalThis.Deno.serve(
    {
      port: 0,
      hostname: '127.0.0.1',
      onListen: ({ port }) => console.log(`listening at http://127.0.0.1:${port}`),
    },
    server.fetch,
  );
}
