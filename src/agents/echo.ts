/** `echo`: answers every message with a direct Message carrying the same parts. */
import type { AgentExecutor } from '../core/executor.js';
import { KIT_VERSION, type BuiltInCard } from './card.js';

/** Replies with a Message echoing the incoming parts (text, data, files alike). */
export const echoExecutor: AgentExecutor = {
  async execute(ctx, events) {
    await events.reply({ parts: ctx.message.parts.map((part) => ({ ...part })) });
  },
};

/** The echo agent's card. */
export const echoCard: BuiltInCard = {
  name: 'echo',
  description: 'Replies to every message with the same content, as a direct message.',
  version: KIT_VERSION,
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Sends your message back unchanged.',
      tags: ['demo', 'test'],
      examples: ['hello'],
    },
  ],
};
