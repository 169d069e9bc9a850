/**
 * The `a2a` security flags end to end: `serve --api-key --sign-key --sign-kid` puts the echo
 * agent behind an API key with a signed card; `send --api-key` / `--header` get in, nothing
 * else does; `card --verify --key` checks the signature.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning, runCli, spawnCli, waitForLine } from '../support/cli.js';

test('a2a serve --api-key --sign-key; a2a send --api-key / --header; a2a card --verify --key', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-cli-sec-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signing = pair();
  writeFileSync(join(dir, 'sign.pem'), signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(join(dir, 'public.pem'), signing.publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(join(dir, 'other.pem'), pair().publicKey.export({ type: 'spki', format: 'pem' }));

  const child = spawnCli([
    'serve',
    '--port',
    '0',
    '--api-key',
    'alice=k-alice',
    '--api-key',
    'bob=k-bob',
    '--sign-key',
    join(dir, 'sign.pem'),
    '--sign-kid',
    'card-1',
  ]);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const [, url] = await waitForLine(child, /^a2a-kit: echo agent at (http:\/\/127\.0\.0\.1:\d+) /m);

  const refused = await runCli(['send', url!, 'hi']);
  assert.equal(refused.code, 8); // a protocol error (a2a --help lists the exit codes)
  assert.match(refused.stderr, /Unauthenticated|API key/i);
  const byKey = await runCli(['send', url!, 'hi there', '--api-key', 'k-alice']);
  assert.equal(byKey.code, 0, byKey.stderr);
  assert.match(byKey.stdout, /hi there/);
  const byHeader = await runCli(['send', url!, 'hi', '--header', 'X-API-Key: k-bob', '--binding', 'rest']);
  assert.equal(byHeader.code, 0, byHeader.stderr);

  const card = await runCli(['card', url!, '--json']);
  const { card: json } = JSON.parse(card.stdout) as { card: { securitySchemes?: Record<string, unknown> } };
  assert.deepEqual(Object.keys(json.securitySchemes ?? {}), ['apiKey']);
  const verified = await runCli(['card', url!, '--verify', '--key', join(dir, 'public.pem')]);
  assert.equal(verified.code, 0, verified.stderr);
  assert.match(verified.stderr, /signature: verified \(kid card-1, ES256\)/);
  const wrongKey = await runCli(['card', url!, '--verify', '--key', join(dir, 'other.pem')]);
  assert.notEqual(wrongKey.code, 0);
  assert.match(wrongKey.stderr, /signature/);
  child.kill('SIGTERM');
});
