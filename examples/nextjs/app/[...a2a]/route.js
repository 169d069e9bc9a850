// The agent at the root: /.well-known/agent-card.json, /a2a/jsonrpc, /a2a/rest/...
import { a2aNext } from 'a2a-kit/server';
import { server } from '../../lib/agent.mjs';

export const { GET, POST, DELETE } = a2aNext(server);
export const dynamic = 'force-dynamic';
