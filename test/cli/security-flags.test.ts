/** Parsing of the `a2a` security flags (src/cli/security-flags.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardVerifyHook, clientHeaders, serveSecurityOptions } from '../../src/cli/security-flags.js';

test('serve flags become security, tls and sign options', () => {
  assert.deepEqual(serveSecurityOptions({}), {});
  const opts = serveSecurityOptions({
    apiKey: ['alice=k1', 'bob=k=2'],
    jwksUrl: 'https://issuer.example/jwks.json',
    jwtIssuer: 'https://issuer.example',
    jwtAudience: 'agent',
    tlsCert: 'c.pem',
    tlsKey: 'k.pem',
    tlsClientCa: 'ca.pem',
  });
  assert.deepEqual(
    opts.security?.authenticators.map((a) => a.name),
    ['apiKey', 'bearer', 'mtls'],
  );
  assert.deepEqual(opts.tls, { certFile: 'c.pem', keyFile: 'k.pem', clientCaFile: 'ca.pem' });
});

test('inconsistent serve flags are refused', () => {
  assert.throws(() => serveSecurityOptions({ apiKey: ['nokey'] }), /PRINCIPAL=KEY/);
  assert.throws(() => serveSecurityOptions({ apiKey: ['a=k', 'b=k'] }), /twice/);
  assert.throws(() => serveSecurityOptions({ jwksUrl: 'https://x' }), /go together/);
  assert.throws(() => serveSecurityOptions({ tlsCert: 'c.pem' }), /go together/);
  assert.throws(() => serveSecurityOptions({ tlsClientCa: 'ca.pem' }), /needs --tls-cert/);
  assert.throws(() => serveSecurityOptions({ signKey: 'k.pem' }), /go together/);
});

test('client flags become headers; bad headers are refused', () => {
  assert.deepEqual(clientHeaders({ token: 't', apiKey: 'k', header: ['X-Trace: 1', 'x-api-key:k2'] }), {
    authorization: 'Bearer t',
    'x-api-key': 'k2',
    'x-trace': '1',
  });
  assert.throws(() => clientHeaders({ header: ['no colon'] }), /NAME:VALUE/);
  assert.throws(() => clientHeaders({ header: ['bad name: v'] }), /NAME:VALUE/);
});

test('card --verify needs exactly one key source', () => {
  assert.equal(
    cardVerifyHook({}, () => undefined),
    undefined,
  );
  assert.throws(() => cardVerifyHook({ verify: true }, () => undefined), /exactly one/);
  assert.throws(() => cardVerifyHook({ key: 'k.pem' }, () => undefined), /need --verify/);
});
