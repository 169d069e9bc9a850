/**
 * Issue 27, suspected item, CLI side: `a2a push listen --card URL` fetches the push JWKS the
 * card names only from the agent's own origin. A card naming a JWKS on another server gets a
 * usage error that says to pass --jwks, and that server receives nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { startJsonServer } from '../support/json-server.js';
import { PUSH_SIGNING_EXTENSION } from '../../src/core/push/notification-signing.js';

test('push listen --card refuses a push JWKS on another origin than the agent', async (t) => {
  const agent = await startJsonServer();
  t.after(() => agent.close());
  const elsewhere = await startJsonServer();
  t.after(() => elsewhere.close());
  elsewhere.set('/jwks.json', { keys: [] });
  agent.set('/.well-known/agent-card.json', {
    name: 'pusher',
    description: 'd',
    version: '1',
    supportedInterfaces: [
      { url: `${agent.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: {
      pushNotifications: true,
      extensions: [{ uri: PUSH_SIGNING_EXTENSION, params: { jwksUrl: `${elsewhere.url}/jwks.json` } }],
    },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
  });
  const listen = await runCli(['push', 'listen', '--card', agent.url, '--timeout', '5s']);
  assert.equal(listen.code, 2, listen.stderr);
  assert.match(listen.stderr, /not on the agent's origin.*--jwks/s);
  assert.equal(elsewhere.hits.size, 0, 'the JWKS the card pointed elsewhere was fetched');
});
