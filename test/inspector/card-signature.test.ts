/** The Card view's signature status through the API: verified with a trusted JWKS, failed with another, unchecked without one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { createA2AServer } from '../../src/server/http.js';
import { benchCard, benchExecutor } from '../../src/agents/bench.js';
import { startInspector } from '../../src/inspector/server.js';
import { TOKEN_HEADER } from '../../src/inspector/guard.js';
import type { ConnectResult } from '../../src/inspector/api-types.js';

test('a signed card: verified, failed or unchecked, as the trusted keys say', async (t) => {
  const signer = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('ES256', { extractable: true });
  const jwks = async (key: CryptoKey) => ({
    keys: [{ ...(await exportJWK(key)), kid: 'k1', alg: 'ES256' }],
  });
  const sets: Record<string, unknown> = {
    '/good.json': await jwks(signer.publicKey),
    '/other.json': await jwks(stranger.publicKey),
  };
  const keyServer = createServer((req, res) => {
    const body = sets[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => keyServer.close(() => resolve())));
  const keys = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
  const agent = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    store: 'memory',
    sign: { keys: { privateKey: signer.privateKey, alg: 'ES256', kid: 'k1' } },
  });
  const { url } = await agent.listen(0, '127.0.0.1');
  t.after(() => agent.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  const connect = async (trustedJwks?: string) => {
    const response = await fetch(`${inspector.url}/api/connect`, {
      method: 'POST',
      headers: { [TOKEN_HEADER]: inspector.token, 'content-type': 'application/json' },
      body: JSON.stringify({ url, ...(trustedJwks ? { trustedJwks } : {}) }),
    });
    return ((await response.json()) as ConnectResult).card?.signature;
  };
  assert.equal((await connect(`${keys}/good.json`))?.status, 'verified');
  const failed = await connect(`${keys}/other.json`);
  assert.equal(failed?.status, 'failed');
  assert.match(failed?.message ?? '', /bad-signature|no-trusted-key/);
  assert.equal((await connect())?.status, 'unchecked');
});
