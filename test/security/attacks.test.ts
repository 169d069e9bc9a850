/**
 * Issue 27, server side: each finding reproduced as the attack it was, on real sockets, and
 * refused. Finding 1: no body byte before authentication, one parse, depth refused before the
 * parse; 2: the tenant bound to the credential and limits keyed by the caller; 3: no signing
 * oracle; 5: anonymous gRPC callers per HTTP/2 session; 6: JWT without `exp`; 7: mTLS DN
 * escaping; 11: principal ids namespaced by authenticator.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { authRequestFromGrpc } from '../../src/bindings/grpc/auth-request.js';
import { A2A_SERVICE_NAME } from '../../src/bindings/grpc/service.js';
import { peerCertificateFromNode } from '../../src/bindings/auth-request.js';
import type { Transport } from '../../src/bindings/transport.js';
import { PermissionDeniedError, TaskNotFoundError } from '../../src/errors/a2a-error.js';
import { A2AConfigError } from '../../src/errors/config-errors.js';
import { createApiKeyAuthenticator, createBearerAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { SendMessageRequest } from '../../src/model/schema.js';
import { hasOpenssl } from '../support/pki.js';

const skill = { id: 's', name: 'S', description: 'S', tags: ['t'] };
const card = { name: 'attacked', description: 'Under attack', version: '1.0.0', skills: [skill] };
const send = (text: string, tenant?: string): SendMessageRequest => ({
  ...(tenant !== undefined ? { tenant } : {}),
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
});

/** One raw HTTP exchange on its own connection; the body may be sent only in part. */
function raw(
  port: number,
  options: { path: string; headers?: Record<string, string>; body?: string; declaredLength?: number },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? '';
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: options.path,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(options.declaredLength ?? Buffer.byteLength(body)),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    // A bound on the wait, not a speed check: without an answer the attack worked.
    req.setTimeout(10_000, () => req.destroy(new Error('no answer before the body ended')));
    req.on('error', reject);
    req.write(body);
    if (options.declaredLength === undefined) req.end();
  });
}

const deep = (bytes: number): string => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2);

describe('finding 1: no work before authentication, one bounded parse', () => {
  let server: A2AServer;
  let port: number;
  let grpcPort: number;
  before(async () => {
    server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      grpc: { port: 0, host: '127.0.0.1' },
      security: { authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })] },
    });
    const info = await server.listen(0, '127.0.0.1');
    port = info.port;
    grpcPort = info.grpcPort!;
  });
  after(() => server.close());

  const paths: [string, string, Record<string, string>][] = [
    ['JSON-RPC, no version', '/a2a/jsonrpc', {}],
    ['JSON-RPC 1.0', '/a2a/jsonrpc', { 'a2a-version': '1.0' }],
    ['JSON-RPC 0.3', '/a2a/jsonrpc', { 'a2a-version': '0.3' }],
    ['REST 1.0', '/a2a/rest/message:send', { 'a2a-version': '1.0' }],
    ['REST 0.3', '/a2a/rest/v1/message:send', {}],
  ];

  test('SRV-TRUST-1: an anonymous caller is refused (401) before its body has even arrived', async () => {
    for (const [name, path, headers] of paths) {
      // 1 MiB announced, 16 bytes sent: the answer can only come from the headers.
      const reply = await raw(port, { path, headers, body: '[[[[[[[[[[[[[[[[', declaredLength: 1024 * 1024 });
      assert.equal(reply.status, 401, `${name}: ${reply.text}`);
    }
  });

  test('SRV-TRUST-1: gRPC authenticates from metadata before decoding the message', async (t) => {
    const client = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
    t.after(() => client.close());
    for (const service of [A2A_SERVICE_NAME, 'a2a.v1.A2AService']) {
      const status = await new Promise<grpc.ServiceError | null>((resolve) => {
        client.makeUnaryRequest(
          `/${service}/SendMessage`,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from([0xff, 0xff, 0xff, 0xff]), // not a message: decoding would fail first
          new grpc.Metadata(),
          (error) => resolve(error),
        );
      });
      assert.equal(status?.code, grpc.status.UNAUTHENTICATED, `${service}: ${status?.details}`);
    }
  });

  test('SRV-TRUST-2: a 1 MiB nested body is refused before JSON.parse, on every JSON binding', async () => {
    const body = deep(1024 * 1024);
    for (const [name, path, headers] of paths) {
      const parse = JSON.parse;
      let parsed = 0;
      JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
        if (typeof text === 'string' && text.startsWith('[[[[')) parsed++;
        return parse(text, reviver);
      }) as typeof JSON.parse;
      let reply;
      try {
        reply = await raw(port, { path, headers: { ...headers, 'x-api-key': 'k-1' }, body });
      } finally {
        JSON.parse = parse;
      }
      assert.equal(parsed, 0, `${name}: the deep body reached JSON.parse`);
      if (path.includes('jsonrpc')) assert.match(reply.text, /-32600/, name);
      else assert.equal(reply.status, 400, `${name}: ${reply.text}`);
      assert.ok(reply.text.length < 1000, `${name}: echoed ${reply.text.length} chars`);
    }
  });

  test('SRV-TRUST-1: a version-less JSON-RPC body is parsed once, not by the router and again by the binding', async () => {
    const marker = `once-${crypto.randomUUID()}`;
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      if (typeof text === 'string' && text.includes(marker)) parsed++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let reply;
    try {
      reply = await raw(port, {
        path: '/a2a/jsonrpc',
        headers: { 'x-api-key': 'k-1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: send(marker) }),
      });
    } finally {
      JSON.parse = parse;
    }
    assert.equal(reply.status, 200, reply.text);
    assert.equal(parsed, 1);
  });
});

describe('finding 2: the tenant is bound to the credential; limits are keyed by the caller', () => {
  let server: A2AServer;
  let url: string;
  let grpcTarget: string;
  const transports: Transport[] = [];
  const issuer = 'https://issuer.example';
  let signJwt: (claims: Record<string, unknown>) => Promise<string>;

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    signJwt = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuer(issuer)
        .setAudience('a2a')
        .setSubject('alice')
        .setExpirationTime('5m')
        .setIssuedAt()
        .sign(privateKey);
    server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      grpc: { port: 0, host: '127.0.0.1' },
      security: {
        authenticators: [
          createApiKeyAuthenticator({
            keys: { 'k-acme': { id: 'alice', tenant: 'acme' }, 'k-free': 'carol' },
          }),
          createBearerAuthenticator({ keys: [jwk], issuer, audience: 'a2a', tenantClaim: 'tid' }),
        ],
      },
    });
    const info = await server.listen(0, '127.0.0.1');
    url = info.url;
    grpcTarget = `127.0.0.1:${info.grpcPort!}`;
  });
  after(async () => {
    for (const t of transports) t.close?.();
    await server.close();
  });

  function transport(binding: string, headers: Record<string, string>): Transport {
    const t =
      binding === 'JSONRPC'
        ? new JsonRpcTransport(`${url}/a2a/jsonrpc`, { headers })
        : binding === 'HTTP+JSON'
          ? new RestTransport(`${url}/a2a/rest`, { headers })
          : new GrpcTransport(grpcTarget, { headers });
    transports.push(t);
    return t;
  }

  test('SRV-TRUST-3: an API key of tenant acme cannot read or create in globex, on every binding', async () => {
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
      const acme = transport(binding, { 'x-api-key': 'k-acme' });
      const res = await acme.sendMessage(send('mine', 'acme'));
      assert.ok('task' in res && res.task, binding);
      await assert.rejects(acme.sendMessage(send('theirs', 'globex')), PermissionDeniedError, binding);
      await assert.rejects(acme.listTasks({ tenant: 'globex' }), PermissionDeniedError, binding);
      await assert.rejects(acme.getTask({ tenant: 'globex', id: res.task.id }), PermissionDeniedError);
      // No tenant at all is not a way around it either.
      await assert.rejects(acme.listTasks({}), PermissionDeniedError, binding);
      // A key that binds no tenant names any (the previous behaviour).
      const free = transport(binding, { 'x-api-key': 'k-free' });
      assert.ok('task' in (await free.sendMessage(send('anywhere', 'globex'))));
    }
  });

  test('SRV-TRUST-3: a JWT with tid=acme cannot act in globex', async () => {
    const acme = transport('JSONRPC', { authorization: `Bearer ${await signJwt({ tid: 'acme' })}` });
    const res = await acme.sendMessage(send('mine', 'acme'));
    assert.ok('task' in res && res.task);
    const globex = transport('JSONRPC', { authorization: `Bearer ${await signJwt({ tid: 'globex' })}` });
    // Same `sub`, another tenant's token: still not the acme task.
    await assert.rejects(globex.getTask({ tenant: 'acme', id: res.task.id }), PermissionDeniedError);
    await assert.rejects(acme.getTask({ tenant: 'globex', id: res.task.id }), PermissionDeniedError);
  });
});

describe('finding 2: limits keyed by the caller, anonymous callers by address', () => {
  let server: A2AServer;
  let port: number;
  before(async () => {
    server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      limits: { ratePerSecond: 0.001, rateBurst: 2 },
      security: {
        authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })],
        anonymous: 'per-connection',
      },
    });
    port = (await server.listen(0, '127.0.0.1')).port;
  });
  after(() => server.close());

  const list = (tenant: string, headers: Record<string, string> = {}) =>
    raw(port, {
      path: '/a2a/jsonrpc',
      headers: { 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { tenant } }),
    });

  test('SRV-TRUST-5: another tenant per request does not reset an authenticated caller’s bucket', async () => {
    const statuses = [];
    for (const tenant of ['a', 'b', 'c', 'd'])
      statuses.push((await list(tenant, { 'x-api-key': 'k-1' })).status);
    assert.deepEqual(statuses, [200, 200, 429, 429]);
  });

  test('SRV-TRUST-5: a new connection per request does not reset an anonymous caller’s bucket', async () => {
    // Each request on its own TCP connection: each is a new per-connection principal.
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await list('')).status);
    assert.deepEqual(statuses, [200, 200, 429, 429]);
  });
});

describe('finding 2: limits of anonymous callers on a fetch runtime', () => {
  test('SRV-TRUST-5: keyed by the address the host passes, else one shared key', async (t) => {
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      limits: { ratePerSecond: 0.001, rateBurst: 2 },
      security: {
        authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })],
        anonymous: 'per-connection',
      },
    });
    t.after(() => server.close());
    // On fetch every request is its own anonymous principal: it must not be its own bucket.
    const list = async (remoteAddress?: string) =>
      (
        await server.fetch(
          new Request('http://agent.example/a2a/rest/tasks', { headers: { 'a2a-version': '1.0' } }),
          remoteAddress ? { remoteAddress } : undefined,
        )
      ).status;
    const statuses = [
      await list('192.0.2.1'),
      await list('192.0.2.1'),
      await list('192.0.2.1'),
      await list('192.0.2.2'),
    ];
    assert.deepEqual(statuses, [200, 200, 429, 200]);
    const shared = [await list(), await list(), await list()];
    assert.deepEqual(shared, [200, 200, 429]);
  });
});

describe('finding 3: no signing oracle', () => {
  test('SRV-TRUST-6: sign without publicUrl is refused when mounted (nodeHandler, fetch)', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      sign: { keys: { privateKey, alg: 'ES256', kid: 'card' } },
    });
    after(() => server.close());
    assert.throws(() => server.nodeHandler, A2AConfigError);
    await assert.rejects(
      server.fetch(new Request('http://attacker.example/.well-known/agent-card.json')),
      A2AConfigError,
    );
    const configured = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      publicUrl: 'https://agent.example.com',
      sign: { keys: { privateKey, alg: 'ES256', kid: 'card' } },
    });
    after(() => configured.close());
    const reply = await configured.fetch(
      new Request('http://attacker.example/.well-known/agent-card.json', {
        headers: { host: 'attacker.example' },
      }),
    );
    const served = (await reply.json()) as { supportedInterfaces: { url: string }[]; signatures?: unknown[] };
    assert.ok(served.signatures?.length);
    assert.ok(served.supportedInterfaces.every((i) => i.url.startsWith('https://agent.example.com')));
  });

  test('SRV-TRUST-6: an unsigned card built from Host varies by Host and is not cached publicly', async () => {
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
    });
    after(() => server.close());
    const reply = await server.fetch(new Request('http://attacker.example/.well-known/agent-card.json'));
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('vary'), 'Host');
    assert.match(reply.headers.get('cache-control') ?? '', /^private/);
    const listening = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
    });
    after(() => listening.close());
    const { url } = await listening.listen(0, '127.0.0.1');
    const own = await fetch(`${url}/.well-known/agent-card.json`, { headers: { host: 'attacker.example' } });
    assert.equal(own.headers.get('vary'), null);
    assert.match(own.headers.get('cache-control') ?? '', /^public/);
    assert.doesNotMatch(await own.text(), /attacker/);
  });
});

describe('finding 5: anonymous gRPC callers are scoped per HTTP/2 session', () => {
  test('SRV-TRUST-9: two sessions from the same ip:port are two callers', () => {
    const session = (): object => ({});
    const call = (s: object) => ({
      metadata: { toJSON: () => ({}) },
      getPath: () => '/x',
      getPeer: () => 'ipv4:203.0.113.9:40000',
      call: { nextCall: { stream: { session: s } } },
    });
    const first = session();
    const a = authRequestFromGrpc(call(first));
    const b = authRequestFromGrpc(call(first));
    const c = authRequestFromGrpc(call(session()));
    assert.equal(a.connectionId, b.connectionId);
    assert.notEqual(a.connectionId, c.connectionId);
    assert.equal(a.remoteAddress, '203.0.113.9');
  });

  test('SRV-TRUST-9: a new channel does not see the tasks of an earlier anonymous one', async (t) => {
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      grpc: { port: 0, host: '127.0.0.1' },
      security: {
        authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })],
        anonymous: 'per-connection',
      },
    });
    t.after(() => server.close());
    const { grpcPort } = await server.listen(0, '127.0.0.1');
    const first = new GrpcTransport(`127.0.0.1:${grpcPort!}`);
    t.after(() => first.close());
    const res = await first.sendMessage(send('mine'));
    assert.ok('task' in res && res.task);
    // The same connection sees its task; another does not.
    assert.equal((await first.getTask({ id: res.task.id })).id, res.task.id);
    // Its own HTTP/2 connection (grpc-js shares connections between channels by default).
    const second = new GrpcTransport(`127.0.0.1:${grpcPort!}`, {
      channelOptions: { 'grpc.use_local_subchannel_pool': 1 },
    });
    t.after(() => second.close());
    await assert.rejects(second.getTask({ id: res.task.id }), TaskNotFoundError);
    assert.equal((await second.listTasks({})).tasks.length, 0);
  });
});

describe('finding 6: a JWT without exp', () => {
  test('SRV-TRUST-7: refused unless the operator opts in', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    const forever = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer('https://issuer.example')
      .setAudience('a2a')
      .setSubject('alice')
      .setIssuedAt()
      .sign(privateKey);
    const request = (await import('../../src/server/auth/index.js')).createAuthRequest({
      headers: { authorization: `Bearer ${forever}` },
    });
    const options = { keys: [jwk], issuer: 'https://issuer.example', audience: 'a2a' };
    const strict = await createBearerAuthenticator(options).authenticate(request);
    assert.equal(strict.ok, false);
    assert.match(strict.ok ? '' : strict.failure.message, /exp/);
    const lenient = await createBearerAuthenticator({ ...options, allowMissingExpiry: true }).authenticate(
      request,
    );
    assert.equal(lenient.ok, true);
  });
});

describe('finding 7: mTLS subject DNs are escaped', () => {
  test('SRV-TRUST-8: CN="alice,OU=eng" and CN=alice, OU=eng are two principals', (t) => {
    assert.ok(hasOpenssl(), 'this test needs the openssl CLI');
    const dir = mkdtempSync(join(tmpdir(), 'a2a-dn-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const subjectOf = (subj: string): string => {
      const out = join(dir, `${crypto.randomUUID()}.pem`);
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          out,
          '-subj',
          subj,
          '-days',
          '1',
        ],
        { stdio: 'ignore' },
      );
      const cert = new X509Certificate(readFileSync(out)).toLegacyObject();
      return peerCertificateFromNode(cert, true)!.subject;
    };
    const one = subjectOf('/O=Acme/CN=alice\\,OU=eng');
    const two = subjectOf('/O=Acme/CN=alice/OU=eng');
    assert.notEqual(one, two);
    assert.equal(one, 'O=Acme,CN=alice\\,OU=eng');
    assert.equal(two, 'O=Acme,CN=alice,OU=eng');
  });
});

describe('finding 11: principal ids are namespaced by authenticator', () => {
  test('SRV-TRUST-4: API key "alice" and JWT sub "alice" do not share tasks', async (t) => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer('https://issuer.example')
      .setAudience('a2a')
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(privateKey);
    const server = createA2AServer({
      agent: async (ctx, task) => task.complete(`hello ${ctx.principal.id}`),
      card,
      store: 'memory',
      security: {
        authenticators: [
          createApiKeyAuthenticator({ keys: { 'k-alice': 'alice' } }),
          createBearerAuthenticator({ keys: [jwk], issuer: 'https://issuer.example', audience: 'a2a' }),
        ],
      },
    });
    t.after(() => server.close());
    const { url } = await server.listen(0, '127.0.0.1');
    const byKey = new JsonRpcTransport(`${url}/a2a/jsonrpc`, { headers: { 'x-api-key': 'k-alice' } });
    const byJwt = new JsonRpcTransport(`${url}/a2a/jsonrpc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const res = await byKey.sendMessage(send('mine'));
    assert.ok('task' in res && res.task);
    assert.match(JSON.stringify(res.task.artifacts), /hello apiKey:alice/);
    await assert.rejects(byJwt.getTask({ id: res.task.id }), TaskNotFoundError);
    assert.equal((await byJwt.listTasks({})).tasks.length, 0);
  });
});
