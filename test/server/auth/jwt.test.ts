/**
 * Bearer JWT, OAuth 2.0 and OpenID Connect authenticators against keys generated here, served
 * as a JWKS (and discovery documents) by a real HTTP server on 127.0.0.1.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, exportJWK, generateKeyPair, generateSecret, type CryptoKey, type JWK } from 'jose';
import {
  createAuthRequest,
  createBearerAuthenticator,
  createOAuth2Authenticator,
  createOpenIdConnectAuthenticator,
  createSecurityGate,
  type AuthOutcome,
} from '../../../src/server/auth/index.js';
import { UnavailableError } from '../../../src/errors/index.js';
import { startJsonServer } from '../../support/json-server.js';

const ISSUER = 'https://issuer.example.com';
const AUDIENCE = 'https://agent.example.com';

interface Signer {
  privateKey: CryptoKey;
  jwk: JWK;
  alg: string;
}

async function signer(alg: 'RS256' | 'ES256' | 'EdDSA', kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }, alg };
}

interface TokenInit {
  sub?: string;
  iss?: string;
  aud?: string;
  scope?: string;
  scp?: string[];
  expiresIn?: string | number;
  iat?: number;
  extra?: Record<string, unknown>;
}

function token(s: Signer, init: TokenInit = {}): Promise<string> {
  const jwt = new SignJWT({
    ...(init.scope !== undefined ? { scope: init.scope } : {}),
    ...(init.scp ? { scp: init.scp } : {}),
    ...init.extra,
  })
    .setProtectedHeader({ alg: s.alg, kid: s.jwk.kid!, typ: 'JWT' })
    .setIssuer(init.iss ?? ISSUER)
    .setAudience(init.aud ?? AUDIENCE)
    .setIssuedAt(init.iat)
    .setExpirationTime(init.expiresIn ?? '5m');
  if (init.sub !== '') jwt.setSubject(init.sub ?? 'alice');
  return jwt.sign(s.privateKey);
}

const bearer = (t: string) => createAuthRequest({ headers: { authorization: `Bearer ${t}` } });

function failure(outcome: AuthOutcome) {
  assert.equal(outcome.ok, false, 'expected a refusal');
  return (outcome as Extract<AuthOutcome, { ok: false }>).failure;
}

function principal(outcome: AuthOutcome) {
  assert.ok(outcome.ok, `expected success, got ${JSON.stringify(outcome)}`);
  return outcome.principal;
}

describe('bearer JWT against a JWKS URL', () => {
  test('good, missing, bad, expired, wrong audience, wrong issuer, wrong algorithm, unknown key', async (t) => {
    const rs = await signer('RS256', 'rs-1');
    const es = await signer('ES256', 'es-1');
    const other = await signer('RS256', 'rs-1'); // same kid, different key: a forgery
    const jwks = await startJsonServer();
    t.after(() => jwks.close());
    jwks.set('/jwks.json', { keys: [rs.jwk, es.jwk] });
    const auth = createBearerAuthenticator({
      jwksUrl: `${jwks.url}/jwks.json`,
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      clockToleranceSeconds: 5,
    });
    assert.deepEqual(auth.scheme, { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } });
    assert.equal(auth.name, 'bearer');

    const good = principal(
      await auth.authenticate(bearer(await token(rs, { scope: 'tasks:read tasks:write' }))),
    );
    assert.equal(good.id, 'alice');
    assert.deepEqual(good.scopes, ['tasks:read', 'tasks:write']);
    assert.deepEqual(good.schemes, ['bearer']);
    assert.equal((good.claims as { iss: string }).iss, ISSUER);
    assert.ok((jwks.hits.get('/jwks.json') ?? 0) >= 1, 'the JWKS was fetched over HTTP');

    const missing = failure(await auth.authenticate(createAuthRequest()));
    assert.equal(missing.kind, 'missing');
    assert.deepEqual(missing.challenges, ['Bearer realm="a2a"']);
    // A Basic header is not a bearer token.
    assert.equal(
      failure(await auth.authenticate(createAuthRequest({ headers: { authorization: 'Basic eDp5' } }))).kind,
      'missing',
    );

    const cases: [string, Promise<string> | string, RegExp][] = [
      ['garbage', 'not-a-jwt', /malformed/],
      ['forged signature', token(other), /signature/],
      ['expired', token(rs, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), /expired/],
      ['wrong audience', token(rs, { aud: 'https://someone-else.example.com' }), /aud/],
      ['wrong issuer', token(rs, { iss: 'https://evil.example.com' }), /iss/],
      ['algorithm not allowed', token(es), /algorithm/],
      ['no subject', token(rs, { sub: '' }), /principal/],
    ];
    for (const [label, tok, message] of cases) {
      const f = failure(await auth.authenticate(bearer(await tok)));
      assert.equal(f.kind, 'invalid', label);
      assert.match(f.message, message, label);
      assert.equal(f.challenges.length, 1, label);
      assert.match(
        f.challenges[0]!,
        /^Bearer realm="a2a", error="invalid_token", error_description="/,
        label,
      );
    }
  });

  test('clock skew: a token expired a moment ago passes within the tolerance, not beyond', async () => {
    const rs = await signer('RS256', 'k');
    const auth = createBearerAuthenticator({
      keys: [rs.jwk],
      issuer: ISSUER,
      audience: AUDIENCE,
      clockToleranceSeconds: 120,
    });
    const now = Math.floor(Date.now() / 1000);
    principal(await auth.authenticate(bearer(await token(rs, { expiresIn: now - 30 }))));
    assert.match(
      failure(await auth.authenticate(bearer(await token(rs, { expiresIn: now - 600 })))).message,
      /expired/,
    );
  });

  test('static keys: EdDSA and ES256 by kid; scp array; tenant claim; maxTokenAge', async () => {
    const ed = await signer('EdDSA', 'ed');
    const es = await signer('ES256', 'es');
    const auth = createBearerAuthenticator({
      keys: { keys: [ed.jwk, es.jwk] },
      issuer: [ISSUER, 'https://other-issuer.example.com'],
      audience: AUDIENCE,
      tenantClaim: 'tid',
      maxTokenAgeSeconds: 300,
    });
    const p = principal(
      await auth.authenticate(bearer(await token(ed, { scp: ['a', 'b', 'a'], extra: { tid: 'acme' } }))),
    );
    assert.deepEqual(p.scopes, ['a', 'b']);
    assert.equal(p.tenant, 'acme');
    assert.deepEqual(p.tenants, ['acme']);
    principal(
      await auth.authenticate(
        bearer(
          await token(es, { iss: 'https://other-issuer.example.com', extra: { tid: ['acme', 'globex'] } }),
        ),
      ),
    );
    // SRV-TRUST-3: with a tenant claim configured, a token that names no tenant is refused.
    assert.match(
      failure(await auth.authenticate(bearer(await token(es, {})))).message,
      /tid claim names no tenant/,
    );
    const old = Math.floor(Date.now() / 1000) - 3600;
    assert.equal(
      failure(await auth.authenticate(bearer(await token(es, { iat: old, expiresIn: old + 7200 })))).kind,
      'invalid',
    );
  });

  test('HS256 is refused by default even with the right secret; alg none never configurable', async () => {
    const secret = await generateSecret('HS256');
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(secret);
    const auth = createBearerAuthenticator({ key: secret, issuer: ISSUER, audience: AUDIENCE });
    assert.match(failure(await auth.authenticate(bearer(hs))).message, /algorithm/);
    assert.throws(() =>
      createBearerAuthenticator({ key: secret, issuer: ISSUER, audience: AUDIENCE, algorithms: ['none'] }),
    );
    assert.throws(() => createBearerAuthenticator({ key: secret, issuer: ISSUER, audience: '' }), /audience/);
    assert.throws(() => createBearerAuthenticator({ issuer: ISSUER, audience: AUDIENCE }), /exactly one/);
  });

  test('typ: an RFC 9068 access token is required when configured', async () => {
    const rs = await signer('RS256', 'k');
    const auth = createBearerAuthenticator({
      keys: [rs.jwk],
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    assert.match(failure(await auth.authenticate(bearer(await token(rs)))).message, /typ/);
    const at = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k', typ: 'at+jwt' })
      .setSubject('svc')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(rs.privateKey);
    assert.equal(principal(await auth.authenticate(bearer(at))).id, 'svc');
  });

  test('wrong scope: the gate answers insufficient_scope with a 403 challenge', async () => {
    const rs = await signer('RS256', 'k');
    const auth = createBearerAuthenticator({ keys: [rs.jwk], issuer: ISSUER, audience: AUDIENCE });
    const gate = createSecurityGate({
      authenticators: [auth],
      requirements: [{ schemes: { bearer: { list: ['tasks:write'] } } }],
    });
    principal(await gate.authenticate(bearer(await token(rs, { scope: 'tasks:write' }))));
    const f = failure(await gate.authenticate(bearer(await token(rs, { scope: 'tasks:read' }))));
    assert.equal(f.kind, 'insufficient-scope');
    assert.deepEqual(f.missingScopes, ['tasks:write']);
    assert.deepEqual(f.challenges, ['Bearer realm="a2a", error="insufficient_scope", scope="tasks:write"']);
  });

  test("an unreachable JWKS is the server's problem (UnavailableError), not a 401", async () => {
    const rs = await signer('RS256', 'k');
    const jwks = await startJsonServer();
    const url = `${jwks.url}/jwks.json`;
    await jwks.close();
    const auth = createBearerAuthenticator({
      jwksUrl: url,
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksTimeoutMs: 2000,
    });
    await assert.rejects(auth.authenticate(bearer(await token(rs))), UnavailableError);
  });
});

describe('OpenID Connect and OAuth 2.0 with discovery', () => {
  test('OIDC: discovery gives issuer and jwks_uri; tokens are checked against them', async (t) => {
    const rs = await signer('RS256', 'op-1');
    const op = await startJsonServer();
    t.after(() => op.close());
    const issuer = op.url;
    op.set('/.well-known/openid-configuration', {
      issuer,
      jwks_uri: `${op.url}/keys`,
      authorization_endpoint: `${op.url}/authorize`,
    });
    op.set('/keys', { keys: [rs.jwk] });
    const auth = createOpenIdConnectAuthenticator({
      issuer,
      audience: AUDIENCE,
      skillScopes: { deploy: ['deploy:run'] },
    });
    assert.deepEqual(auth.scheme, {
      openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer}/.well-known/openid-configuration` },
    });
    assert.deepEqual(auth.skillScopes, { deploy: ['deploy:run'] });
    await auth.ready();
    const p = principal(
      await auth.authenticate(bearer(await token(rs, { iss: issuer, scope: 'deploy:run' }))),
    );
    assert.deepEqual(p.schemes, ['oidc']);
    assert.equal(failure(await auth.authenticate(bearer(await token(rs, { iss: ISSUER })))).kind, 'invalid');
    assert.equal(
      failure(await auth.authenticate(bearer(await token(rs, { iss: issuer, aud: 'x' })))).kind,
      'invalid',
    );
    assert.equal(failure(await auth.authenticate(createAuthRequest())).kind, 'missing');
    assert.equal(op.hits.get('/.well-known/openid-configuration'), 1, 'discovery is read once');
  });

  test('OIDC: a discovery document naming another issuer is refused; a missing one is retried later', async (t) => {
    const rs = await signer('RS256', 'op-1');
    const op = await startJsonServer();
    t.after(() => op.close());
    const auth = createOpenIdConnectAuthenticator({ issuer: op.url, audience: AUDIENCE });
    const tok = await token(rs, { iss: op.url });
    await assert.rejects(auth.authenticate(bearer(tok)), UnavailableError); // 404
    op.set('/.well-known/openid-configuration', {
      issuer: 'https://evil.example.com',
      jwks_uri: `${op.url}/keys`,
    });
    await assert.rejects(auth.authenticate(bearer(tok)), /names issuer https:\/\/evil/);
    op.set('/.well-known/openid-configuration', { issuer: op.url, jwks_uri: `${op.url}/keys` });
    op.set('/keys', { keys: [rs.jwk] });
    principal(await auth.authenticate(bearer(tok)));
  });

  test('OIDC: an oversized discovery document is refused', async (t) => {
    const op = await startJsonServer();
    t.after(() => op.close());
    op.set('/.well-known/openid-configuration', {
      issuer: op.url,
      jwks_uri: `${op.url}/keys`,
      pad: 'x'.repeat(300_000),
    });
    const auth = createOpenIdConnectAuthenticator({ issuer: op.url, audience: AUDIENCE });
    await assert.rejects(auth.ready(), /too large/);
  });

  test('OAuth 2.0: RFC 8414 metadata, a client-credentials flow on the card, scopes per requirement', async (t) => {
    const es = await signer('ES256', 'as-1');
    const as = await startJsonServer();
    t.after(() => as.close());
    as.set('/.well-known/oauth-authorization-server', {
      issuer: as.url,
      jwks_uri: `${as.url}/jwks`,
      token_endpoint: `${as.url}/token`,
    });
    as.set('/jwks', { keys: [es.jwk] });
    const flows = {
      clientCredentials: { tokenUrl: `${as.url}/token`, scopes: { 'tasks:write': 'send messages' } },
    };
    const auth = createOAuth2Authenticator({
      flows,
      metadataUrl: `${as.url}/.well-known/oauth-authorization-server`,
      audience: AUDIENCE,
    });
    assert.deepEqual(auth.scheme, {
      oauth2SecurityScheme: { flows, oauth2MetadataUrl: `${as.url}/.well-known/oauth-authorization-server` },
    });
    const gate = createSecurityGate({
      authenticators: [auth],
      requirements: [{ schemes: { oauth2: { list: ['tasks:write'] } } }],
    });
    principal(await gate.authenticate(bearer(await token(es, { iss: as.url, scope: 'tasks:write' }))));
    assert.equal(
      failure(await gate.authenticate(bearer(await token(es, { iss: as.url, scope: 'tasks:read' })))).kind,
      'insufficient-scope',
    );
    assert.equal(
      failure(
        await gate.authenticate(
          bearer(await token(es, { iss: as.url, expiresIn: Math.floor(Date.now() / 1000) - 120 })),
        ),
      ).kind,
      'invalid',
    );
    assert.throws(
      () =>
        createOAuth2Authenticator({
          flows: { implicit: { scopes: {} } },
          issuer: ISSUER,
          audience: AUDIENCE,
          keys: [],
        }),
      /deprecated/,
    );
  });
});
