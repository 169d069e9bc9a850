// Cloudflare Workers (workerd): the Worker sends every request to one Durable Object, whose
// SQLite storage holds the tasks (they survive restarts). All requests of a tenant
// go to the same object, so its streams and SubscribeToTask meet the task manager running the
// task. The server is made on the object's first request: Workers allow no timers or random
// values at global scope.
import { createDurableObjectServer } from 'a2a-kit/cloudflare';

/**
 * The agent: streams its answer one word per artifact chunk, then completes. `wait` keeps the
 * task working until it is canceled (at most a minute).
 */
const agent = async (ctx, task) => {
  if (ctx.text === 'wait') {
    await task.working('waiting to be canceled');
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      ctx.signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
    });
    if (!ctx.signal.aborted) await task.complete('nobody canceled me');
    return;
  }
  const words = `you said: ${ctx.text}`.split(' ');
  for (const [i, word] of words.entries()) {
    await task.artifact(
      { artifactId: 'answer', name: 'answer', text: i === 0 ? word : ` ${word}` },
      { append: i > 0, lastChunk: i === words.length - 1 },
    );
  }
  await task.complete();
};

const card = {
  name: 'anywhere',
  description: 'Streams back what it is told, one word at a time',
  version: '1.0.0',
  skills: [{ id: 'echo', name: 'Echo', description: 'Streams the message back', tags: ['example'] }],
};

/** The Durable Object class (SQLite storage: `new_sqlite_classes` in wrangler.toml). */
export class A2AAgent {
  constructor(ctx) {
    this.ctx = ctx;
  }

  fetch(request) {
    this.server ??= createDurableObjectServer(this.ctx.storage, { agent, card });
    return this.server.fetch(request);
  }
}

export default {
  fetch(request, env) {
    // One object per tenant (here a single one); a multi-tenant Worker names it by tenant.
    return env.A2A_AGENT.get(env.A2A_AGENT.idFromName('default')).fetch(request);
  },
};
