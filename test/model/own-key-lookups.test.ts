/**
 * Issue 27, finding 8 across the tree: tables looked up with a caller's string answer only for
 * their own keys. `constructor`, `__proto__` or `toString` is not a v0.3 state or role, and a
 * `__proto__` or `constructor` member added to a signed card is a member like any other (it
 * changes the signed payload) instead of vanishing into the object's prototype.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair } from 'jose';
import { parseRole, parseTaskState } from '../../src/model/enums.js';
import { stateFromV03 } from '../../src/bindings/compat-v03/content.js';
import { signAgentCard } from '../../src/server/card/sign.js';
import { verifyAgentCard } from '../../src/client/card-signature.js';
import type { AgentCard } from '../../src/model/schema.js';

const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

test('v0.3 state and role spellings are own keys only', () => {
  for (const name of inherited) {
    assert.equal(parseTaskState(name), undefined, name);
    assert.equal(parseRole(name), undefined, name);
    assert.equal(stateFromV03(name), name, `${name} passes through to the validator`);
  }
  assert.equal(parseTaskState('working'), 'TASK_STATE_WORKING');
  assert.equal(parseRole('agent'), 'ROLE_AGENT');
  assert.equal(stateFromV03('input-required'), 'TASK_STATE_INPUT_REQUIRED');
});

test('a __proto__ or constructor member added to a signed card fails verification', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
  const card: AgentCard = {
    name: 'a',
    description: 'b',
    supportedInterfaces: [
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
  };
  const text = JSON.stringify(await signAgentCard(card, { privateKey, alg: 'ES256', kid: 'k' }));
  assert.equal((await verifyAgentCard(JSON.parse(text), { keys: [jwk] })).ok, true);
  const added = [
    '"__proto__":{"url":"http://127.0.0.1:9/evil","protocolVersion":"0.3.0"},',
    '"constructor":"x",',
  ];
  for (const member of added) {
    // JSON.parse makes `__proto__` an own member, as any JSON parser does.
    const tampered: unknown = JSON.parse(text.replace('{', `{${member}`));
    const result = await verifyAgentCard(tampered, { keys: [jwk] });
    assert.equal(result.ok, false, `accepted a card with ${member} added`);
  }
});
