/**
 * REST error responses on the client: only a 404 that carries the A2A error (its ErrorInfo
 * reason) is TaskNotFoundError; a 404 from something that is not an A2A server is a transport
 * error that says what came back (status, content type, body excerpt).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { A2ATransportError } from '../../src/errors/client-errors.js';
import { A2AClient } from '../../src/client/client.js';
import { TaskNotFoundError } from '../../src/errors/index.js';
import { Role } from '../../src/model/enums.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

const send = {
  message: { messageId: 'm1', role: Role.USER, parts: [{ text: 'hi' }] },
  configuration: { returnImmediately: false },
};

/** A node server answering every request with `status`, `type` and `body`. */
async function fixed(status: number, type: string, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': type }).end(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const drain = async (events: AsyncIterable<unknown>) => {
  for await (const _ of events) void _;
};

/** A2ATransportError with status 404 whose message names the content type and body. */
function plain404(type: RegExp, excerpt: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof A2ATransportError, `not a transport error: ${String(e)}`);
    assert.ok(!(e instanceof TaskNotFoundError));
    assert.equal(e.status, 404);
    assert.match(e.message, /404/);
    assert.match(e.message, type);
    assert.match(e.message, excerpt);
    return true;
  };
}

describe('REST 404s', () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  test('a plain HTML 404 is a transport error on every operation', async () => {
    const { url, server } = await fixed(404, 'text/html', '<html><pre>Cannot GET /x</pre></html>');
    servers.push(server);
    const t = new RestTransport(url);
    const check = plain404(/text\/html/, /Cannot GET/);
    await assert.rejects(t.getTask({ id: 't1' }), check);
    await assert.rejects(t.sendMessage(send), check);
    await assert.rejects(t.cancelTask({ id: 't1' }), check);
    await assert.rejects(t.listTasks({}), check);
    await assert.rejects(drain(t.subscribeToTask({ id: 't1' })), check);
    await assert.rejects(drain(t.sendStreamingMessage(send)), check);
  });

  test('a 404 error envelope without an ErrorInfo is not TaskNotFound', async () => {
    const body = JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'no route' } });
    const { url, server } = await fixed(404, 'application/json', body);
    servers.push(server);
    await assert.rejects(
      new RestTransport(url).getTask({ id: 't1' }),
      plain404(/application\/json/, /no route/),
    );
  });

  test('a 404 carrying the TASK_NOT_FOUND ErrorInfo is TaskNotFoundError', async () => {
    const body = JSON.stringify({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'gone',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    });
    const { url, server } = await fixed(404, 'application/a2a+json', body);
    servers.push(server);
    await assert.rejects(new RestTransport(url).getTask({ id: 't1' }), TaskNotFoundError);
  });
});

describe('REST 404s from real servers', () => {
  let ours: A2AServer;
  let oursUrl: string;
  let sdk: SdkServer;
  before(async () => {
    ours = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card: {
        name: 'ours',
        description: 'd',
        version: '1',
        skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
      },
    });
    oursUrl = (await ours.listen(0, '127.0.0.1')).url;
    sdk = await startSdkServer();
  });
  after(async () => {
    await ours.close();
    await sdk.close();
  });

  for (const which of ['ours', 'sdk'] as const) {
    test(`${which}: an unknown task is TaskNotFound; a wrong base path is not`, async () => {
      const base = which === 'ours' ? oursUrl : sdk.url;
      const c = await A2AClient.connect(base, { bindings: ['HTTP+JSON'], retry: false, failover: false });
      try {
        await assert.rejects(c.getTask('no-such-task'), TaskNotFoundError);
      } finally {
        await c.close();
      }
      const wrong = new RestTransport(`${base}/not-a2a`);
      await assert.rejects(wrong.getTask({ id: 't1' }), (e: unknown) => {
        assert.ok(!(e instanceof TaskNotFoundError), `got ${String(e)}`);
        return true;
      });
      if (which === 'sdk') {
        // Express's own 404 page: not an A2A answer at all.
        await assert.rejects(wrong.sendMessage(send), plain404(/text\/html/, /Cannot POST/));
      }
    });
  }
});
