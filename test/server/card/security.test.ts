/** The card's security section generated from authenticators, and the check that refuses a lying card. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPair, exportJWK } from 'jose';
import {
  createApiKeyAuthenticator,
  createBearerAuthenticator,
  createMutualTlsAuthenticator,
  createOpenIdConnectAuthenticator,
} from '../../../src/server/auth/index.js';
import { buildAgentCard, validateAgentCard, InvalidAgentCardError } from '../../../src/server/card/build.js';
import { cardSecurity, checkCardSecurity, withCardSecurity } from '../../../src/server/card/security.js';
import { TEST_CARD } from '../../support/handler.js';
import type { AgentCardConfig } from '../../../src/server/card/build.js';

const FACTS = {
  baseUrl: 'http://127.0.0.1:1',
  jsonrpc: true,
  rest: true,
  streaming: true,
  pushNotifications: false,
  extendedAgentCard: false,
};
const apiKey = createApiKeyAuthenticator({ keys: { k: 'alice' }, description: 'team keys' });
const mtls = createMutualTlsAuthenticator();

describe('card security from authenticators', () => {
  test('schemes by name, requirements any-of by default, a valid card', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const bearer = createBearerAuthenticator({
      keys: [await exportJWK(publicKey)],
      issuer: 'i',
      audience: 'a',
    });
    const sec = cardSecurity([apiKey, bearer, mtls]);
    assert.deepEqual(sec.securitySchemes, {
      apiKey: { apiKeySecurityScheme: { description: 'team keys', location: 'header', name: 'X-API-Key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      mtls: { mtlsSecurityScheme: {} },
    });
    assert.deepEqual(sec.securityRequirements, [
      { schemes: { apiKey: { list: [] } } },
      { schemes: { bearer: { list: [] } } },
      { schemes: { mtls: { list: [] } } },
    ]);
    const config = withCardSecurity(
      TEST_CARD as AgentCardConfig,
      [apiKey, bearer],
      [{ schemes: { bearer: { list: ['tasks:write'] } } }],
    );
    assert.deepEqual(config.securityRequirements, [{ schemes: { bearer: { list: ['tasks:write'] } } }]);
    validateAgentCard(buildAgentCard(config, FACTS));
  });

  test('OIDC skill scopes become skill securityRequirements; an unknown skill is refused', () => {
    const oidc = createOpenIdConnectAuthenticator({
      issuer: 'https://op.example.com',
      audience: 'a',
      skillScopes: { [TEST_CARD.skills[0]!.id]: ['echo:use'] },
    });
    const config = withCardSecurity(TEST_CARD as AgentCardConfig, [oidc]);
    assert.deepEqual(config.skills[0]!.securityRequirements, [{ schemes: { oidc: { list: ['echo:use'] } } }]);
    assert.equal('securityRequirements' in TEST_CARD.skills[0]!, false, 'the input is not changed');
    const stray = createOpenIdConnectAuthenticator({
      issuer: 'https://op.example.com',
      audience: 'a',
      skillScopes: { nope: ['x'] },
    });
    assert.throws(() => withCardSecurity(TEST_CARD as AgentCardConfig, [stray]), /skill nope/);
  });

  test('refuses a card that declares a scheme no authenticator enforces, or hides or changes one', () => {
    const lying = {
      ...TEST_CARD,
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    } as AgentCardConfig;
    assert.throws(
      () => withCardSecurity(lying, []),
      (e: unknown) =>
        e instanceof InvalidAgentCardError &&
        /bearer is declared but no authenticator enforces it/.test(e.message),
    );
    assert.throws(() => checkCardSecurity(lying, [apiKey]), /apiKey is enforced but not declared/);
    const changed = {
      ...TEST_CARD,
      securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'query', name: 'k' } } },
    } as AgentCardConfig;
    assert.throws(() => withCardSecurity(changed, [apiKey]), /declared as .* but the authenticator enforces/);
    const badReq = {
      ...TEST_CARD,
      securitySchemes: { mtls: { mtlsSecurityScheme: {} } },
      securityRequirements: [{ schemes: { oauth: { list: [] } } }],
    } as AgentCardConfig;
    assert.throws(() => checkCardSecurity(badReq, [mtls]), /securityRequirements\[0\] names oauth/);
    // An open agent: nothing declared, nothing enforced.
    checkCardSecurity(TEST_CARD as AgentCardConfig, []);
  });
});
