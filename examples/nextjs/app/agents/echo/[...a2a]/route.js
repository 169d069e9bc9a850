// The same agent below a path: /agents/echo/.well-known/agent-card.json names URLs under it.
import { a2aNext } from 'a2a-kit/server';
import { server } from '../../../../lib/agent.mjs';

export const { GET, POST, DELETE } = a2aNext(server);
export const dynamic = 'force-dynamic';
