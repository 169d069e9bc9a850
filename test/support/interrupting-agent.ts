/** An agent that asks for input on a new task and completes on the follow-up (interrupted-wait tests). */
import type { AgentExecutor } from '../../src/core/executor.js';
import type { A2AServerOptions } from '../../src/server/http.js';

export const INTERRUPTING_AGENT: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.task === undefined) await task.requireInput('which one?');
    else await task.complete();
  },
};

export const INTERRUPTING_CARD: A2AServerOptions['card'] = {
  name: 'interrupting',
  description: 'asks for input',
  version: '1.0.0',
  skills: [{ id: 'ask', name: 'ask', description: 'asks', tags: ['test'] }],
};
