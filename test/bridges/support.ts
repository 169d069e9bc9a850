/** Agents for the bridge tests: the built-in bench agent and a few that misbehave, on loopback. */
import { createA2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { AgentCardConfig } from '../../src/server/card/build.js';
import { benchCard, benchExecutor } from '../../src/agents/bench.js';

/** A running agent on 127.0.0.1 and how to stop it. */
export interface LocalAgent {
  url: string;
  close(): Promise<void>;
}

/** Serves `agent` with `card` on a free loopback port, memory store. */
export async function serveAgent(agent: AgentExecutor, card: AgentCardConfig): Promise<LocalAgent> {
  const server = createA2AServer({ agent, card, store: 'memory', logger: false });
  const listening = await server.listen(0, '127.0.0.1');
  return { url: listening.url.replace(/\/+$/, ''), close: () => server.close() };
}

/** The built-in bench agent. */
export const serveBench = (): Promise<LocalAgent> => serveAgent(benchExecutor, benchCard);

/** Resolves after `ms` or when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** An agent with three skills that go wrong: fail, reject, and never answer (until canceled). */
export const troubleAgent: { executor: AgentExecutor; card: AgentCardConfig } = {
  executor: {
    async execute(ctx, task) {
      if (ctx.text === 'fail') throw new Error('the disk is full');
      if (ctx.text === 'reject') return task.reject('I do not do that');
      if (ctx.text === 'image') {
        return task.complete({
          parts: [
            { raw: Buffer.from('png!').toString('base64'), mediaType: 'image/png', filename: 'a.png' },
            { data: { ok: true } },
          ],
        });
      }
      await task.working('thinking forever');
      await sleep(600_000, ctx.signal);
    },
  },
  card: {
    name: 'trouble',
    description: 'Fails, rejects, or never answers.',
    version: '1.0.0',
    skills: [
      {
        id: 'trouble maker!',
        name: 'Trouble',
        description: 'fail, reject, image, or anything to hang',
        tags: ['test'],
      },
    ],
  },
};
