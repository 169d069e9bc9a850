// Fastify: a plugin; Fastify's body parsing is off for the A2A routes.
import Fastify from 'fastify';
import { createA2AServer } from 'a2a-kit/server';
import { a2aFastify } from 'a2a-kit/fastify';

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

const server = createA2AServer({ agent, card, store: 'memory' });
const app = Fastify();
await app.register(a2aFastify, { server });
const url = await app.listen({ port: Number(process.env.PORT ?? 41241), host: '127.0.0.1' });
console.log(`A2A agent (fastify) at ${url}`);
