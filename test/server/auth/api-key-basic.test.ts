/** API key (header, query, cookie) and HTTP Basic authenticators, and the request view they read. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HeaderMap,
  constantTimeEqual,
  createApiKeyAuthenticator,
  createAuthRequest,
  createBasicAuthenticator,
  createSecurityGate,
  parseCookies,
  staticBasicCredentials,
  type AuthOutcome,
} from '../../../src/server/auth/index.js';

function failure(outcome: AuthOutcome) {
  assert.equal(outcome.ok, false, 'expected a refusal');
  return (outcome as Extract<AuthOutcome, { ok: false }>).failure;
}
function principal(outcome: AuthOutcome) {
  assert.ok(outcome.ok, `expected success, got ${JSON.stringify(outcome)}`);
  return outcome.principal;
}
const basic = (user: string, password: string) =>
  createAuthRequest({
    headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
  });

describe('request view', () => {
  test('headers are a case-insensitive multi-map from records, Headers and pairs', () => {
    const fromRecord = new HeaderMap({
      'X-Api-Key': 'k',
      accept: ['a', 'b'],
      skip: undefined,
      bin: Buffer.from('x'),
    });
    assert.equal(fromRecord.get('x-api-key'), 'k');
    assert.deepEqual(fromRecord.getAll('ACCEPT'), ['a', 'b']);
    assert.equal(fromRecord.has('skip'), false);
    assert.equal(fromRecord.has('bin'), false);
    const fromHeaders = new HeaderMap(new Headers({ Authorization: 'Bearer t' }));
    assert.equal(fromHeaders.get('authorization'), 'Bearer t');
    assert.deepEqual(
      new HeaderMap([
        ['A', '1'],
        ['a', '2'],
      ]).getAll('a'),
      ['1', '2'],
    );
    assert.equal(
      new HeaderMap(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`h${i}`, 'v'])), 3).has('h5'),
      false,
    );
  });

  test('cookies: several headers, quotes, first wins, malformed pairs skipped', () => {
    const cookies = parseCookies(['a=1; b="two"; junk; =x', 'a=3; c=']);
    assert.deepEqual(
      [...cookies],
      [
        ['a', '1'],
        ['b', 'two'],
        ['c', ''],
      ],
    );
    assert.equal(createAuthRequest({ headers: { cookie: 'sid=xyz' } }).cookies.get('sid'), 'xyz');
  });
});

describe('API key', () => {
  const keys = { 'key-alice': 'alice', 'key-bob': { id: 'bob', tenant: 'acme', scopes: ['tasks:read'] } };

  test('header: good, missing, bad; the card scheme and the challenge', async () => {
    const auth = createApiKeyAuthenticator({ keys });
    assert.deepEqual(auth.scheme, { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } });
    const p = principal(
      await auth.authenticate(createAuthRequest({ headers: { 'x-api-key': 'key-alice' } })),
    );
    assert.deepEqual(p, { id: 'alice', schemes: ['apiKey'] });
    const bob = principal(
      await auth.authenticate(createAuthRequest({ headers: { 'X-API-KEY': 'key-bob' } })),
    );
    assert.equal(bob.tenant, 'acme');
    const missing = failure(await auth.authenticate(createAuthRequest()));
    assert.equal(missing.kind, 'missing');
    assert.deepEqual(missing.challenges, ['ApiKey realm="apiKey", in="header", name="X-API-Key"']);
    const bad = failure(
      await auth.authenticate(createAuthRequest({ headers: { 'x-api-key': 'key-alicE' } })),
    );
    assert.equal(bad.kind, 'invalid');
    assert.doesNotMatch(bad.message, /key-alic/, 'the message never echoes the key');
    assert.equal(
      failure(await auth.authenticate(createAuthRequest({ headers: { 'x-api-key': '' } }))).kind,
      'missing',
    );
  });

  test('query and cookie locations', async () => {
    const q = createApiKeyAuthenticator({ name: 'q', in: 'query', parameterName: 'api_key', keys });
    assert.deepEqual(q.scheme, { apiKeySecurityScheme: { location: 'query', name: 'api_key' } });
    assert.equal(
      principal(await q.authenticate(createAuthRequest({ url: '/a2a/rest/tasks?api_key=key-alice' }))).id,
      'alice',
    );
    assert.equal(
      failure(await q.authenticate(createAuthRequest({ url: '/a2a/rest/tasks?api_key=nope' }))).kind,
      'invalid',
    );
    assert.equal(
      failure(await q.authenticate(createAuthRequest({ headers: { api_key: 'key-alice' } }))).kind,
      'missing',
    );
    const c = createApiKeyAuthenticator({
      name: 'c',
      in: 'cookie',
      parameterName: 'a2a_key',
      keys: new Map(Object.entries(keys)),
    });
    assert.equal(
      principal(
        await c.authenticate(createAuthRequest({ headers: { cookie: 'theme=dark; a2a_key=key-bob' } })),
      ).id,
      'bob',
    );
    assert.equal(
      failure(await c.authenticate(createAuthRequest({ headers: { cookie: 'a2a_key=bad' } }))).kind,
      'invalid',
    );
  });

  test('custom verify, config errors, wrong scope through the gate', async () => {
    const auth = createApiKeyAuthenticator({
      verify: async (k) => (k === 'ok' ? { id: 'svc', scopes: ['tasks:read'] } : undefined),
    });
    assert.equal(
      principal(await auth.authenticate(createAuthRequest({ headers: { 'x-api-key': 'ok' } }))).id,
      'svc',
    );
    assert.throws(() => createApiKeyAuthenticator({}), /either keys or verify/);
    assert.throws(() => createApiKeyAuthenticator({ keys: { '': 'x' } }), /empty secret/);
    assert.throws(() => createApiKeyAuthenticator({ keys, in: 'body' as 'header' }), /location/);
    const gate = createSecurityGate({
      authenticators: [auth],
      requirements: [{ schemes: { apiKey: { list: ['tasks:write'] } } }],
    });
    const denied = failure(await gate.authenticate(createAuthRequest({ headers: { 'x-api-key': 'ok' } })));
    assert.equal(denied.kind, 'insufficient-scope');
    assert.deepEqual(denied.missingScopes, ['tasks:write']);
  });
});

describe('HTTP Basic', () => {
  test('static credentials: good, missing, wrong password, unknown user, malformed', async () => {
    const auth = createBasicAuthenticator({
      verify: staticBasicCredentials({
        alice: 'pa:ss wörd',
        bob: { password: 'b', principal: { id: 'bob@acme', scopes: ['x'] } },
      }),
    });
    assert.deepEqual(auth.scheme, { httpAuthSecurityScheme: { scheme: 'Basic' } });
    assert.deepEqual(principal(await auth.authenticate(basic('alice', 'pa:ss wörd'))), {
      id: 'alice',
      schemes: ['basic'],
    });
    assert.equal(principal(await auth.authenticate(basic('bob', 'b'))).id, 'bob@acme');
    const missing = failure(
      await auth.authenticate(createAuthRequest({ headers: { authorization: 'Bearer abc' } })),
    );
    assert.equal(missing.kind, 'missing');
    assert.deepEqual(missing.challenges, ['Basic realm="a2a", charset="UTF-8"']);
    for (const req of [
      basic('alice', 'pa:ss word'),
      basic('mallory', 'pa:ss wörd'),
      createAuthRequest({ headers: { authorization: 'Basic !!!' } }),
      createAuthRequest({ headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` } }),
    ]) {
      assert.equal(failure(await auth.authenticate(req)).kind, 'invalid');
    }
    assert.throws(() => staticBasicCredentials({ x: '' }), /empty password/);
  });

  test('wrong scope through the gate; constant-time compare helper', async () => {
    const auth = createBasicAuthenticator({
      verify: (u, p) => (p === 'pw' ? { id: u, scopes: ['tasks:read'] } : undefined),
    });
    const gate = createSecurityGate({
      authenticators: [auth],
      requirements: [{ schemes: { basic: { list: ['admin'] } } }],
    });
    assert.equal(failure(await gate.authenticate(basic('carol', 'pw'))).kind, 'insufficient-scope');
    assert.equal(constantTimeEqual('abc', 'abc'), true);
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
  });
});
