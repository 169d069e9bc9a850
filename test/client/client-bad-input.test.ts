/**
 * The client against misbehaving peers (small node:http servers): each failure is a typed
 * error naming what was wrong, and nothing hangs.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { A2AClient } from '../../src/client/client.js';
import { AgentCardResolver } from '../../src/client/card-resolver.js';
import {
  A2AInvalidResponseError,
  A2ANoCompatibleInterfaceError,
  A2ATimeoutError,
  A2ATransportError,
} from '../../src/errors/client-errors.js';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { oauth2ClientCredentials } from '../../src/client/auth.js';
import { createPushReceiver } from '../../src/client/push-receiver.js';
import { registerClientCommands } from '../../src/cli/client-commands.js';
import { TaskNotFoundError } from '../../src/errors/index.js';
import { startSdkServer } from '../support/sdk-server.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const servers: { close(): void; closeAllConnections(): void }[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const card = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'bad',
  description: 'd',
  version: '1',
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: [],
  ...extra,
});
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const msg = { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] };

describe('agent card problems', () => {
  test('a card that is not JSON', async () => {
    const url = await serve((_q, res) => res.end('<html>nope</html>'));
    await assert.rejects(new AgentCardResolver().resolve(url), (e: unknown) => {
      assert.ok(e instanceof A2AInvalidResponseError);
      assert.equal(e.reason, 'not-json');
      assert.match(e.message, /agent card .* is not JSON/);
      return true;
    });
  });
  test('a card missing required fields names them', async () => {
    const url = await serve((_q, res) => res.end(JSON.stringify({ description: 'no name' })));
    await assert.rejects(new AgentCardResolver().resolve(url), (e: unknown) => {
      assert.ok(e instanceof A2AInvalidResponseError);
      assert.equal(e.reason, 'invalid-card');
      assert.match(e.message, /name: required/);
      assert.match(e.message, /supportedInterfaces: required/);
      return true;
    });
  });
  test('a card with no usable interface says what it offers', async () => {
    const url = await serve((_q, res) =>
      res.end(
        JSON.stringify(
          card('x', {
            supportedInterfaces: [{ url: 'http://a/x', protocolBinding: 'SOAP', protocolVersion: '1.0' }],
          }),
        ),
      ),
    );
    await assert.rejects(A2AClient.connect(url), (e: unknown) => {
      assert.ok(e instanceof A2ANoCompatibleInterfaceError);
      assert.match(e.message, /SOAP 1\.0 at http:\/\/a\/x/);
      return true;
    });
  });
  test('a v0.3-only card (legacy path) is named as such', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/.well-known/agent.json') {
        res.end(
          JSON.stringify({
            name: 'old',
            description: 'd',
            version: '1',
            url: 'http://a/rpc',
            protocolVersion: '0.3.0',
            capabilities: {},
            defaultInputModes: [],
            defaultOutputModes: [],
            skills: [],
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    const resolved = await new AgentCardResolver().resolve(url);
    assert.match(resolved.notes.join('\n'), /legacy v0\.3 location/);
    // With v0.3 compatibility off (on, the client speaks v0.3 to it: test/interop/v03-*).
    await assert.rejects(A2AClient.connect(url, { compatV03: false }), /speaks only A2A 0\.3/);
  });
  test('CLI-CARD-3 the interface tenant is set on every request', async () => {
    let seen: unknown;
    const url = await serve((_q, res, body) => {
      seen = JSON.parse(body).params.tenant;
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: JSON.parse(body).id,
          result: { message: { ...msg, role: 'ROLE_AGENT' } },
        }),
      );
    });
    const c = await A2AClient.connect(
      card(`${url}/rpc`, {
        supportedInterfaces: [
          { url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0.2', tenant: 't1' },
        ],
      }) as never,
    );
    await c.send({ text: 'hi' });
    assert.equal(seen, 't1');
  });
});

describe('bad responses', () => {
  test('a non-A2A body', async () => {
    const url = await serve((_q, res) => res.end(JSON.stringify({ hello: 'world' })));
    await assert.rejects(
      new JsonRpcTransport(url).getTask({ id: 't' }),
      (e: unknown) => e instanceof A2AInvalidResponseError && e.reason === 'not-a2a',
    );
    await assert.rejects(new RestTransport(url).getTask({ id: 't' }), (e: unknown) => {
      assert.ok(e instanceof A2AInvalidResponseError && e.reason === 'not-a2a');
      assert.match(e.message, /status: required/);
      return true;
    });
  });
  test('a JSON-RPC response with the wrong id', async () => {
    const url = await serve((_q, res) =>
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 'other', result: {} })),
    );
    await assert.rejects(new JsonRpcTransport(url).getTask({ id: 't' }), (e: unknown) => {
      assert.ok(e instanceof A2AInvalidResponseError && e.reason === 'wrong-id');
      assert.match(e.message, /id "other"/);
      return true;
    });
  });
  test('a truncated SSE stream', async () => {
    const url = await serve((_q, res) => {
      sse(res);
      res.end('data: {"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}\n\ndata: {"statusUp');
    });
    const got: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of new RestTransport(url).sendStreamingMessage({ message: msg })) got.push(e);
      })(),
      (e: unknown) => e instanceof A2AInvalidResponseError && e.reason === 'truncated-stream',
    );
    assert.equal(got.length, 1);
  });
  test('multi-line data and comments are accepted; an event for another task is an error', async () => {
    const url = await serve((_q, res) => {
      sse(res);
      res.write(': keep-alive\n\n');
      res.write('data: {"task":{"id":"t1",\ndata: "status":{"state":"TASK_STATE_WORKING"}}}\n\n');
      res.end(
        'data: {"statusUpdate":{"taskId":"t2","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}\n\n',
      );
    });
    const got: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of new RestTransport(url).sendStreamingMessage({ message: msg })) got.push(e);
      })(),
      (e: unknown) => {
        assert.ok(e instanceof A2AInvalidResponseError && e.reason === 'wrong-task');
        assert.match(e.message, /task "t2" while following task "t1"/);
        return true;
      },
    );
    assert.equal(got.length, 1);
  });
  test('a silent stream fails with the idle timeout', async () => {
    const url = await serve((_q, res) => sse(res));
    await assert.rejects(
      (async () => {
        for await (const _ of new RestTransport(url, { streamIdleTimeoutMs: 150 }).subscribeToTask({
          id: 't',
        }))
          void _;
      })(),
      A2ATimeoutError,
    );
  });
  test('REST subscribe falls back to GET after a bare 405 (D1) and remembers it', async () => {
    const verbs: string[] = [];
    const url = await serve((req, res) => {
      verbs.push(req.method ?? '');
      if (req.method === 'POST') return void res.writeHead(405).end();
      sse(res);
      res.end('data: {"task":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}}\n\n');
    });
    const t = new RestTransport(url);
    for (let i = 0; i < 2; i++) for await (const _ of t.subscribeToTask({ id: 't1' })) void _;
    assert.deepEqual(verbs, ['POST', 'GET', 'GET']);
  });
  test('a REST 404 with an A2A body is TaskNotFound, with no fallback', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(404, { 'content-type': 'application/a2a+json' });
      res.end(
        JSON.stringify({
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
        }),
      );
    });
    await assert.rejects(
      (async () => {
        for await (const _ of new RestTransport(url).subscribeToTask({ id: 't1' })) void _;
      })(),
      TaskNotFoundError,
    );
  });
  test('connection refused is a transport error, after bounded retries', async () => {
    const url = await serve(() => undefined);
    const closed = servers.pop() as { close(): void };
    closed.close();
    const c = new A2AClient(new JsonRpcTransport(url), undefined, {
      retry: { attempts: 2, baseDelayMs: 10 },
    });
    await assert.rejects(
      c.getTask('t'),
      (e: unknown) => e instanceof A2ATransportError && e.networkCode === 'ECONNREFUSED',
    );
  });
});

describe('credentials', () => {
  test('OAuth2 client credentials: cached, refreshed on 401, call retried once', async () => {
    let issued = 0;
    const tokenUrl = await serve((req, res, body) => {
      assert.match(body, /grant_type=client_credentials/);
      assert.match(req.headers.authorization ?? '', /^Basic /);
      issued++;
      res.end(JSON.stringify({ access_token: `tok${issued}`, expires_in: 3600, token_type: 'Bearer' }));
    });
    let rejectFirst = true;
    const agent = await serve((req, res, body) => {
      const id = JSON.parse(body).id;
      if (req.headers.authorization === 'Bearer tok1' && rejectFirst) {
        rejectFirst = false; // the server revoked tok1
        return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      }
      assert.equal(req.headers.authorization, 'Bearer tok2');
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } },
        }),
      );
    });
    const auth = oauth2ClientCredentials({ clientId: 'c', clientSecret: 's', tokenUrl });
    const c = new A2AClient(new JsonRpcTransport(agent), undefined, { auth });
    assert.equal((await c.getTask('t')).id, 't');
    assert.equal((await c.getTask('t')).id, 't');
    assert.equal(auth.fetchedTokens, 2);
  });
});

describe('push receiver', () => {
  test('CLI-PUSH-1..3: bad token 401, bad body 400, unknown task 404, good one 200 then delivered', async () => {
    const delivered: string[] = [];
    const handler = createPushReceiver({
      token: 'secret',
      expectTask: (id) => id === 't1',
      onEvent: (e, id) => void delivered.push(`${e.kind}:${id}`),
    });
    const url = await serve(() => undefined);
    const server = servers[servers.length - 1] as unknown as {
      removeAllListeners(e: string): void;
      on(e: string, h: unknown): void;
    };
    server.removeAllListeners('request');
    server.on('request', handler);
    const post = (body: string, token = 'secret') =>
      fetch(url, {
        method: 'POST',
        headers: { 'x-a2a-notification-token': token, 'content-type': 'application/a2a+json' },
        body,
      });
    const event = JSON.stringify({
      statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
    });
    assert.equal((await post(event, 'wrong')).status, 401);
    assert.equal((await post('{"nope":1}')).status, 400);
    assert.equal((await post(event.replace('t1', 't9'))).status, 404);
    assert.equal((await post(event)).status, 200);
    assert.deepEqual(delivered, ['statusUpdate:t1']);
  });
});

describe('a2a CLI client commands', () => {
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    let code = 0;
    const program = new Command().exitOverride();
    registerClientCommands(program, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      setExitCode: (c) => (code = c),
    });
    await program.parseAsync(['node', 'a2a', ...args]);
    return { out, err, code };
  }
  test('card, send --json, send --stream --json, get, failing task exit code', async () => {
    const server = await startSdkServer({ stepMs: 5 });
    try {
      const c = await run(['card', server.url]);
      assert.match(c.out[0] ?? '', /sdk-test-agent/);
      const s = await run(['send', server.url, 'task', '--json', '--binding', 'rest']);
      assert.equal(s.code, 0);
      const line = JSON.parse(s.out[0] ?? '{}');
      assert.equal(line.kind, 'task');
      const task = line.task;
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      const st = await run(['send', server.url, 'stream:2', '--stream', '--json']);
      assert.ok(st.out.length >= 4);
      assert.ok(st.out.every((l) => Object.keys(JSON.parse(l)).length === 2 && JSON.parse(l).kind));
      const g = await run(['get', server.url, task.id]);
      assert.match(g.out.join('\n'), /completed/);
      const f = await run(['send', server.url, 'fail']);
      assert.equal(f.code, 1);
      const bad = await run(['get', server.url, 'missing']);
      assert.equal(bad.code, 8);
      assert.match(bad.err[0] ?? '', /TaskNotFound/);
    } finally {
      await server.close();
    }
  });
});
