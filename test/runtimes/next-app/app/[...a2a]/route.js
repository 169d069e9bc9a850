// test/runtimes/disconnect-agent.mjs as Next.js App Router route handlers (the disconnect check).
import { a2aNext } from '../../../../../dist/server/index.js';
import { disconnectServer } from '../../../disconnect-agent.mjs';

export const { GET, POST, DELETE } = a2aNext(disconnectServer());
export const dynamic = 'force-dynamic';
