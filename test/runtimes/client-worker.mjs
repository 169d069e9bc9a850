// A worker running a2a-kit's client (test/runtimes/client-script.mjs) against the agent named
// by `?agent=<url>`; answers with what it saw, as JSON.
import { exercise } from './client-script.mjs';

export default {
  async fetch(request) {
    const agent = new URL(request.url).searchParams.get('agent');
    if (!agent) return new Response('?agent= is missing', { status: 400 });
    try {
      return Response.json(await exercise(agent));
    } catch (error) {
      return Response.json({ error: String(error?.stack ?? error) }, { status: 500 });
    }
  },
};
