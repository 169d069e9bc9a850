/** securityRequirements over named authenticators: OR of ANDs with scopes, and per-skill checks. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthenticationFailedError,
  InsufficientScopeError,
  authorizeSkill,
  createApiKeyAuthenticator,
  createAuthRequest,
  createBasicAuthenticator,
  createSecurityGate,
  satisfiesRequirements,
  securityHeadersFor,
  staticBasicCredentials,
  type AuthOutcome,
} from '../../../src/server/auth/index.js';
import type { SecurityRequirement } from '../../../src/model/schema.js';
import { ResourceExhaustedError } from '../../../src/errors/index.js';

const apiKey = createApiKeyAuthenticator({
  keys: {
    k1: { id: 'svc', scopes: ['tasks:read'] },
    k2: { id: 'other', tenant: 'globex', scopes: ['tasks:read'] },
  },
});
const basicAuth = createBasicAuthenticator({
  verify: staticBasicCredentials({
    alice: { password: 'pw', principal: { id: 'alice', tenant: 'acme', scopes: ['tasks:write'] } },
  }),
});
const headers = (h: Record<string, string>) => createAuthRequest({ headers: h });
const KEY = { 'x-api-key': 'k1' };
const BASIC = { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` };

function failure(outcome: AuthOutcome) {
  assert.equal(outcome.ok, false, 'expected a refusal');
  return (outcome as Extract<AuthOutcome, { ok: false }>).failure;
}
function principal(outcome: AuthOutcome) {
  assert.ok(outcome.ok, `expected success, got ${JSON.stringify(outcome)}`);
  return outcome.principal;
}

describe('security gate', () => {
  test('default requirements: any one scheme; missing lists every challenge', async () => {
    const gate = createSecurityGate({ authenticators: [apiKey, basicAuth] });
    assert.deepEqual(gate.requirements, [
      { schemes: { apiKey: { list: [] } } },
      { schemes: { basic: { list: [] } } },
    ]);
    assert.equal(principal(await gate.authenticate(headers(KEY))).id, 'apiKey:svc');
    assert.equal(principal(await gate.authenticate(headers(BASIC))).id, 'basic:alice');
    const missing = failure(await gate.authenticate(headers({})));
    assert.equal(missing.kind, 'missing');
    assert.equal(missing.challenges.length, 2);
    await assert.rejects(gate.principalOf(headers({})), AuthenticationFailedError);
  });

  test('AND: both credentials needed; scopes united; the first scheme names the principal', async () => {
    const gate = createSecurityGate({
      authenticators: [apiKey, basicAuth],
      requirements: [{ schemes: { basic: { list: ['tasks:write'] }, apiKey: { list: ['tasks:read'] } } }],
    });
    const p = principal(await gate.authenticate(headers({ ...KEY, ...BASIC })));
    // SRV-TRUST-4: the id is namespaced by the scheme that named it.
    assert.equal(p.id, 'basic:alice');
    assert.equal(p.tenant, 'acme');
    assert.deepEqual(p.tenants, ['acme']);
    assert.deepEqual(p.schemes, ['basic', 'apiKey']);
    assert.deepEqual([...(p.scopes ?? [])].sort(), ['tasks:read', 'tasks:write']);
    assert.equal(failure(await gate.authenticate(headers(KEY))).kind, 'missing');
    assert.equal(failure(await gate.authenticate(headers(BASIC))).kind, 'missing');
    // Credentials of two tenants do not combine.
    const split = failure(await gate.authenticate(headers({ 'x-api-key': 'k2', ...BASIC })));
    assert.equal(split.kind, 'invalid');
  });

  test('a bad credential is reported before missing ones and before scope failures', async () => {
    const gate = createSecurityGate({
      authenticators: [apiKey, basicAuth],
      requirements: [{ schemes: { apiKey: { list: ['admin'] } } }, { schemes: { basic: { list: [] } } }],
    });
    const bad = failure(await gate.authenticate(headers({ ...KEY, authorization: 'Basic eDp5' })));
    assert.equal(bad.kind, 'invalid');
    assert.equal(bad.scheme, 'basic');
    const scope = failure(await gate.authenticate(headers(KEY)));
    assert.equal(scope.kind, 'insufficient-scope');
    await assert.rejects(gate.principalOf(headers(KEY)), InsufficientScopeError);
    assert.equal(principal(await gate.authenticate(headers(BASIC))).id, 'basic:alice');
  });

  test('an empty requirement admits anonymous callers; config errors are refused', async () => {
    const gate = createSecurityGate({
      authenticators: [apiKey],
      requirements: [{ schemes: { apiKey: { list: [] } } }, {}],
    });
    assert.equal(principal(await gate.authenticate(headers(KEY))).id, 'apiKey:svc');
    assert.equal(principal(await gate.authenticate(headers({}))).id, 'anonymous');
    assert.equal(failure(await gate.authenticate(headers({ 'x-api-key': 'wrong' }))).kind, 'invalid');
    const scoped = createSecurityGate({
      authenticators: [apiKey],
      requirements: [{}, { schemes: { apiKey: { list: ['admin'] } } }],
    });
    assert.equal(failure(await scoped.authenticate(headers(KEY))).kind, 'insufficient-scope');
    assert.equal(principal(await scoped.authenticate(headers({}))).id, 'anonymous');
    assert.throws(
      () =>
        createSecurityGate({
          authenticators: [apiKey],
          requirements: [{ schemes: { oauth: { list: [] } } }],
        }),
      /no authenticator enforces/,
    );
    assert.throws(() => createSecurityGate({ authenticators: [apiKey, apiKey] }), /two authenticators/);
    assert.throws(() => createSecurityGate({ authenticators: [apiKey], requirements: [] }), /empty/);
  });

  test('each scheme runs once per request however many alternatives name it', async () => {
    let calls = 0;
    const counted = createApiKeyAuthenticator({
      verify: () => {
        calls++;
        return { id: 'x' };
      },
    });
    const gate = createSecurityGate({
      authenticators: [counted, basicAuth],
      requirements: [
        { schemes: { apiKey: { list: [] }, basic: { list: [] } } },
        { schemes: { apiKey: { list: ['nope'] } } },
      ],
    });
    failure(await gate.authenticate(headers({ 'x-api-key': 'a' })));
    assert.equal(calls, 1);
  });
});

describe('per-skill requirements', () => {
  const skill: { id: string; securityRequirements: SecurityRequirement[] } = {
    id: 'deploy',
    securityRequirements: [
      { schemes: { oauth: { list: ['deploy:run'] } } },
      { schemes: { apiKey: { list: ['admin'] } } },
    ],
  };
  test('met by the right scheme with the scopes; otherwise InsufficientScopeError naming them', () => {
    authorizeSkill({ id: 'a', schemes: ['oauth'], scopes: ['deploy:run'] }, skill);
    authorizeSkill({ id: 'a', schemes: ['apiKey'], scopes: ['admin'] }, skill);
    authorizeSkill({ id: 'a', schemes: ['apiKey'] }, { id: 'open' });
    assert.deepEqual(
      satisfiesRequirements({ id: 'a', schemes: ['oauth'], scopes: [] }, skill.securityRequirements),
      {
        ok: false,
        missingScopes: ['deploy:run'],
      },
    );
    assert.throws(
      () => authorizeSkill({ id: 'a', schemes: ['oauth'], scopes: ['other'] }, skill),
      (e: unknown) => e instanceof InsufficientScopeError && /deploy:run/.test(e.message),
    );
    assert.throws(
      () => authorizeSkill({ id: 'a', schemes: ['basic'], scopes: ['admin'] }, skill),
      InsufficientScopeError,
    );
  });
});

describe('reply headers for security errors', () => {
  test('WWW-Authenticate from the gate failure, Retry-After from a rate limit, nothing otherwise', async () => {
    const gate = createSecurityGate({ authenticators: [apiKey, basicAuth] });
    const error = await gate.principalOf(headers({})).catch((e: unknown) => e);
    assert.deepEqual(securityHeadersFor(error), {
      'www-authenticate':
        'ApiKey realm="apiKey", in="header", name="X-API-Key", Basic realm="a2a", charset="UTF-8"',
    });
    assert.deepEqual(securityHeadersFor(new ResourceExhaustedError('x', { retryAfterSeconds: 7 })), {
      'retry-after': '7',
    });
    assert.deepEqual(securityHeadersFor(new Error('x')), {});
  });
});
