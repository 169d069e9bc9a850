/**
 * One card for both versions (issue 14 item 2, SRV-COMPAT-6): the v0.3 entries in
 * `supportedInterfaces` and the legacy top-level fields beside the v1.0 ones. A v1.0 reader
 * (ours, the ProtoJSON oracle without the legacy fields) is unaffected; the v0.3 SDK's card
 * resolver accepts the card as it is, security shapes included.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultAgentCardResolver, ClientFactory } from '@a2a-js/sdk-v03/client';
import { benchCard, benchExecutor } from '../../../src/agents/index.js';
import { cardFromV03, cardToV03, legacyCardFields } from '../../../src/bindings/compat-v03/card.js';
import { parseAgentCard } from '../../../src/bindings/card-parse.js';
import { selectInterface } from '../../../src/client/binding-selection.js';
import type { AgentCard } from '../../../src/model/schema.js';
import type { AgentCardConfig } from '../../../src/server/card/build.js';
import { createA2AServer, type A2AServer } from '../../../src/server/http.js';
import { assertProtoJson } from '../../support/oracle.js';

const LEGACY = [
  'protocolVersion',
  'url',
  'preferredTransport',
  'additionalInterfaces',
  'supportsAuthenticatedExtendedCard',
  'security',
];

const secured: AgentCardConfig = {
  ...benchCard,
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    oidc: {
      openIdConnectSecurityScheme: {
        openIdConnectUrl: 'https://id.example/.well-known/openid-configuration',
      },
    },
  },
  securityRequirements: [
    { schemes: { key: { list: [] } } },
    { schemes: { oidc: { list: ['read', 'write'] } } },
  ],
};

describe('the card served with v0.3 compatibility on', () => {
  let server: A2AServer;
  let url: string;
  let card: Record<string, unknown>;

  before(async () => {
    server = createA2AServer({ agent: benchExecutor, card: secured, extendedCard: benchCard });
    url = (await server.listen(0, '127.0.0.1')).url;
    card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
  });
  after(() => server.close());

  test('v1.0 interfaces first, then the v0.3 ones at the same URLs', () => {
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
  });

  test('legacy v0.3 fields beside the v1.0 ones', () => {
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.url, `${url}/a2a/jsonrpc`);
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.deepEqual(card.additionalInterfaces, [
      { url: `${url}/a2a/jsonrpc`, transport: 'JSONRPC' },
      { url: `${url}/a2a/rest`, transport: 'HTTP+JSON' },
    ]);
    assert.equal(card.supportsAuthenticatedExtendedCard, true);
    assert.deepEqual(card.security, secured.securityRequirements);
  });

  test('without the legacy fields it is exact v1.0 ProtoJSON; our own reader keeps the v1.0 view', () => {
    const v1 = Object.fromEntries(Object.entries(card).filter(([k]) => !LEGACY.includes(k)));
    assertProtoJson('AgentCard', v1);
    const parsed = parseAgentCard(card);
    assert.deepEqual(parsed.securitySchemes, secured.securitySchemes);
    assert.deepEqual(selectInterface(parsed), parsed.supportedInterfaces[0]);
    assert.equal(selectInterface(parsed).protocolVersion, '1.0');
  });

  test('the v0.3 SDK resolver accepts it: interfaces, security shapes, extended-card flag', async () => {
    const v03 = await new DefaultAgentCardResolver().resolve(url);
    assert.equal(v03.url, `${url}/a2a/jsonrpc`);
    assert.equal(v03.preferredTransport, 'JSONRPC');
    assert.equal(v03.supportsAuthenticatedExtendedCard, true);
    assert.deepEqual(v03.securitySchemes, {
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: undefined },
      oidc: {
        type: 'openIdConnect',
        openIdConnectUrl: 'https://id.example/.well-known/openid-configuration',
        description: undefined,
      },
    });
    assert.deepEqual(v03.security, [{ key: [] }, { oidc: ['read', 'write'] }]);
    const client = await new ClientFactory().createFromUrl(url);
    const result = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'echo:ok' }],
      },
    });
    assert.equal(result.kind, 'message');
  });

  test('the extended card over v0.3 JSON-RPC is a complete v0.3 card (type discriminators)', async () => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
    });
    const extended = ((await res.json()) as { result: Record<string, unknown> }).result;
    assert.equal(extended.protocolVersion, '0.3.0');
    assert.equal(extended.url, `${url}/a2a/jsonrpc`);
    assert.equal(extended.supportedInterfaces, undefined);
    assert.equal((extended.capabilities as Record<string, unknown>).extendedAgentCard, undefined);
  });
});

describe('card translation', () => {
  const v1: AgentCard = {
    name: 'a',
    description: 'b',
    version: '1',
    supportedInterfaces: [
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true, extendedAgentCard: false },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' } },
      mtls: { mtlsSecurityScheme: {} },
      oauth: {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: 'https://t.example', scopes: { read: 'r' } } },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] }, oauth: { list: ['read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 's',
        name: 's',
        description: 'd',
        tags: ['t'],
        securityRequirements: [{ schemes: { mtls: { list: [] } } }],
      },
    ],
  };

  test('a v1.0 card without v0.3 interfaces gets no legacy fields', () => {
    assert.equal(legacyCardFields({ ...v1, supportedInterfaces: [v1.supportedInterfaces[0]!] }), undefined);
  });

  test('the security shape: v1.0 oneof schemes and {schemes:{list}} ↔ v0.3 type and {name: scopes}', () => {
    const v03 = cardToV03(v1);
    assert.deepEqual(v03.securitySchemes, {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      mtls: { type: 'mutualTLS' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://t.example', scopes: { read: 'r' } } },
      },
    });
    assert.deepEqual(v03.security, [{ bearer: [], oauth: ['read'] }]);
    assert.deepEqual(v03.skills[0]?.security, [{ mtls: [] }]);
    const back = parseAgentCard(cardFromV03(v03 as unknown as Record<string, unknown>));
    assert.deepEqual(back.securitySchemes, v1.securitySchemes);
    assert.deepEqual(back.securityRequirements, v1.securityRequirements);
    assert.deepEqual(back.skills[0]?.securityRequirements, v1.skills[0]?.securityRequirements);
    assert.deepEqual(back.supportedInterfaces, [
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
    ]);
    assert.equal(back.capabilities.extendedAgentCard, false);
  });

  test('a v0.3 card: url + preferredTransport + additionalInterfaces, apiKey `in`, N16 flag spelling', () => {
    const card = parseAgentCard(
      cardFromV03({
        protocolVersion: '0.3.0',
        name: 'old',
        description: 'v0.3 agent',
        version: '2',
        url: 'https://old.example/a2a',
        preferredTransport: 'HTTP+JSON',
        additionalInterfaces: [
          { url: 'https://old.example/a2a', transport: 'HTTP+JSON' },
          { url: 'https://old.example/rpc', transport: 'JSONRPC' },
        ],
        capabilities: { streaming: true, stateTransitionHistory: true },
        securitySchemes: { k: { type: 'apiKey', in: 'query', name: 'key' } },
        security: [{ k: [] }],
        supportsExtendedAgentCard: true,
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'x', name: 'x', description: 'x', tags: ['x'] }],
      }),
    );
    assert.deepEqual(card.supportedInterfaces, [
      { url: 'https://old.example/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' },
      { url: 'https://old.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
    ]);
    assert.deepEqual(card.capabilities, { streaming: true, extendedAgentCard: true });
    assert.deepEqual(card.securitySchemes, {
      k: { apiKeySecurityScheme: { location: 'query', name: 'key' } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { k: { list: [] } } }]);
  });
});
