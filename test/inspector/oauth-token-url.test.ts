/**
 * Issue 27, finding 4 in the inspector: with the token-URL field empty, the OAuth2 client secret
 * goes only to the token URL of a card whose signature verified against the trusted JWKS the
 * page gave; an unsigned card naming another server's token endpoint gets a clear refusal and
 * that server receives nothing. Real agent, card server, token endpoint and JWKS on 127.0.0.1.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { startInspector, type Inspector } from '../../src/inspector/server.js';
import { TOKEN_HEADER } from '../../src/inspector/guard.js';
import type { ConnectResult } from '../../src/inspector/api-types.js';
import { createA2AServer } from '../../src/server/http.js';
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { AuthenticationFailedError } from '../../src/server/auth/types.js';
import type { AuthRequest } from '../../src/bindings/auth-request.js';
import type { Principal } from '../../src/core/context.js';
import type { AgentCard } from '../../src/model/schema.js';
import { signAgentCard } from '../../src/server/card/sign.js';

async function api<T>(inspector: Inspector, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inspector.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { [TOKEN_HEADER]: inspector.token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

/** A server on 127.0.0.1 that answers by path and records the paths and Authorization headers it saw. */
async function recorder(t: TestContext, answer: (path: string) => unknown) {
  const seen: { path: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    req.resume();
    req.on('end', () => {
      const body = answer(path);
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function setup(t: TestContext) {
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
  const own = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
  const tokens = await recorder(t, (path) =>
    path === '/token' ? { access_token: 'issued-token', token_type: 'Bearer', expires_in: 600 } : undefined,
  );
  const cardWith = (tokenUrl: string): AgentCard => ({
    ...own,
    securitySchemes: {
      oauth: {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl, scopes: { a2a: 'use the agent' } } },
        },
      },
    },
    securityRequirements: [{ schemes: { oauth: { list: ['a2a'] } } }],
  });
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  return { tokens, cardWith, inspector };
}

const send = { message: { messageId: 'm-oauth', role: 'ROLE_USER', parts: [{ text: 'echo:hi' }] } };

test('an unsigned card naming a token URL is refused with the token-URL field empty; nothing is sent there', async (t) => {
  const { tokens, cardWith, inspector } = await setup(t);
  const card = cardWith(`${tokens.url}/token`);
  const cards = await recorder(t, (path) => (path === '/.well-known/agent-card.json' ? card : undefined));
  const connected = await api<ConnectResult>(inspector, '/api/connect', {
    url: cards.url,
    binding: 'JSONRPC',
    auth: { kind: 'oauth2', clientId: 'inspector', clientSecret: 's3cret' },
  });
  if (!connected.error) {
    await api(inspector, '/api/call', { session: connected.session, method: 'SendMessage', request: send });
  }
  assert.deepEqual(tokens.seen, [], 'the token URL of an unverified card was sent the client secret');
  assert.match(connected.error ?? '', /token URL.*signature|secret was not sent/);
});

test("a card whose signature verifies against the page's trusted JWKS lends its token URL", async (t) => {
  const { tokens, cardWith, inspector } = await setup(t);
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'card-key', alg: 'ES256' };
  const signed = await signAgentCard(cardWith(`${tokens.url}/token`), {
    privateKey,
    alg: 'ES256',
    kid: 'card-key',
  });
  const cards = await recorder(t, (path) =>
    path === '/.well-known/agent-card.json' ? signed : path === '/jwks.json' ? { keys: [jwk] } : undefined,
  );
  const connected = await api<ConnectResult>(inspector, '/api/connect', {
    url: cards.url,
    binding: 'JSONRPC',
    trustedJwks: `${cards.url}/jwks.json`,
    auth: { kind: 'oauth2', clientId: 'inspector', clientSecret: 's3cret' },
  });
  assert.equal(connected.error, undefined);
  assert.equal(connected.card?.signature.status, 'verified');
  const reply = await api<{ result?: { message?: unknown }; error?: unknown }>(inspector, '/api/call', {
    session: connected.session,
    method: 'SendMessage',
    request: send,
  });
  assert.ok(reply.result?.message, JSON.stringify(reply));
  assert.deepEqual(
    tokens.seen.map((s) => s.path),
    ['/token'],
  );
  assert.equal(tokens.seen[0]!.authorization, `Basic ${Buffer.from('inspector:s3cret').toString('base64')}`);
});
