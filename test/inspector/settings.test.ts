/**
 * The inspector's connection settings reach the agent, checked on the wire record and by the
 * agent itself: custom headers (on the card fetch too), tenant, requested extensions, another
 * A2A-Version (answered VersionNotSupported), and OAuth 2.0 client credentials (a real token
 * endpoint on loopback; the agent accepts only the token it issued).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startInspector, type Inspector } from '../../src/inspector/server.js';
import { TOKEN_HEADER } from '../../src/inspector/guard.js';
import type { ConnectResult, WireExchange, WireSummary } from '../../src/inspector/api-types.js';
import { createA2AServer } from '../../src/server/http.js';
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { AuthenticationFailedError } from '../../src/server/auth/types.js';
import type { AuthRequest } from '../../src/bindings/auth-request.js';
import type { Principal } from '../../src/core/context.js';
import { startBench } from './agents.js';

async function api<T>(inspector: Inspector, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inspector.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { [TOKEN_HEADER]: inspector.token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

async function exchanges(inspector: Inspector, session: string): Promise<WireExchange[]> {
  const wire = await api<WireSummary[]>(inspector, `/api/wire?session=${session}`);
  return Promise.all(wire.map((w) => api<WireExchange>(inspector, `/api/wire/${w.seq}`)));
}

const send = (text: string) => ({
  message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
});

test('custom headers, tenant and extensions go out on the wire; another A2A-Version is refused', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  const connected = await api<ConnectResult>(inspector, '/api/connect', {
    url: bench.url,
    binding: 'JSONRPC',
    tenant: 'acme',
    headers: { 'x-inspector-test': 'yes' },
    extensions: ['https://example.com/ext/trace/v1'],
  });
  assert.equal(connected.error, undefined);
  const reply = await api<{ result?: { task?: { id: string } }; error?: unknown }>(inspector, '/api/call', {
    session: connected.session,
    method: 'SendMessage',
    request: send('task:settings'),
  });
  assert.ok(reply.result?.task?.id, JSON.stringify(reply));
  const [card, call] = await exchanges(inspector, connected.session);
  assert.equal(card?.request.headers['x-inspector-test'], 'yes', 'the header goes on the card fetch too');
  assert.equal(call?.request.headers['x-inspector-test'], 'yes');
  assert.equal(call?.request.headers['a2a-extensions'], 'https://example.com/ext/trace/v1');
  assert.match(call?.request.body ?? '', /"tenant":"acme"/);

  const other = await api<ConnectResult>(inspector, '/api/connect', {
    url: bench.url,
    binding: 'JSONRPC',
    a2aVersion: '2.0',
  });
  const refused = await api<{ error?: { type: string; message: string } }>(inspector, '/api/call', {
    session: other.session,
    method: 'GetTask',
    request: { id: 'anything' },
  });
  assert.equal(refused.error?.type, 'VersionNotSupportedError', JSON.stringify(refused));
  const last = (await exchanges(inspector, other.session)).at(-1);
  assert.equal(last?.request.headers['a2a-version'], '2.0');
});

test('OAuth 2.0 client credentials: the inspector gets a token and the agent accepts it', async (t) => {
  const grants: string[] = [];
  const tokens = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString()
        : `${form.get('client_id')}:${form.get('client_secret')}`;
      grants.push(`${form.get('grant_type')} ${basic}`);
      const ok = basic === 'inspector:s3cret' && form.get('grant_type') === 'client_credentials';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(ok ? { access_token: 'issued-token', token_type: 'Bearer', expires_in: 300 } : {}),
      );
    });
  });
  await new Promise<void>((r) => tokens.listen(0, '127.0.0.1', r));
  const tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
  t.after(() => new Promise<void>((r) => tokens.close(() => r())));

  const authenticate = (request: AuthRequest): Principal => {
    if (request.headers.get('authorization') === 'Bearer issued-token') return { id: 'inspector' };
    throw new AuthenticationFailedError({
      kind: 'missing',
      scheme: 'oauth2',
      message: 'a token from the token endpoint is required',
      challenges: ['Bearer realm="test"'],
    });
  };
  const agent = createA2AServer({ agent: benchExecutor, card: benchCard, store: 'memory', authenticate });
  const { url } = await agent.listen(0, '127.0.0.1');
  t.after(() => agent.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());

  const connected = await api<ConnectResult>(inspector, '/api/connect', {
    url,
    binding: 'JSONRPC',
    auth: { kind: 'oauth2', clientId: 'inspector', clientSecret: 's3cret', tokenUrl },
  });
  assert.equal(connected.error, undefined);
  const reply = await api<{ result?: { message?: unknown }; error?: unknown }>(inspector, '/api/call', {
    session: connected.session,
    method: 'SendMessage',
    request: send('echo:hello'),
  });
  assert.ok(reply.result?.message, JSON.stringify(reply));
  assert.deepEqual(grants, ['client_credentials inspector:s3cret']);

  const wrong = await api<ConnectResult>(inspector, '/api/connect', {
    url,
    binding: 'JSONRPC',
    auth: { kind: 'oauth2', clientId: 'inspector', clientSecret: 'wrong', tokenUrl },
  });
  const refused = await api<{ error?: { type: string; message: string } }>(inspector, '/api/call', {
    session: wrong.session,
    method: 'SendMessage',
    request: send('echo:again'),
  });
  assert.ok(refused.error, 'a refused token request is an error in the page, not a crash');
});
