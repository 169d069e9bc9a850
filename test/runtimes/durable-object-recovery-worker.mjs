// A Worker whose Durable Object (class HoldingAgent, binding A2A_AGENT) holds every task until it
// is canceled, with a 1 s crash-recovery lease: after workerd is killed, the object's next
// incarnation fails the task it left WORKING (test/runtimes/workerd-durable-object.test.ts).
import { createDurableObjectServer } from '../../dist/server/adapters/cloudflare.js';

const card = {
  name: 'holding',
  description: 'Holds every task until it is canceled',
  version: '1.0.0',
  skills: [{ id: 'hold', name: 'Hold', description: 'Holds the task', tags: ['test'] }],
};

const agent = async (ctx, task) => {
  await task.working('held');
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
};

export class HoldingAgent {
  constructor(ctx) {
    this.ctx = ctx;
  }

  fetch(request) {
    this.server ??= createDurableObjectServer(this.ctx.storage, {
      agent,
      card,
      recovery: { leaseMs: 1_000 },
    });
    return this.server.fetch(request);
  }
}

export default {
  fetch: (request, env) => env.A2A_AGENT.get(env.A2A_AGENT.idFromName('default')).fetch(request),
};
