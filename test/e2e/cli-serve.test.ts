/** `a2a serve` end to end: the real CLI in a child process, on a free port, stopped by SIGTERM. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCode, isRunning, spawnCli, waitForLine } from '../support/cli.js';

test('a2a serve --agent echo serves the card and messages, and exits 0 on SIGTERM', async (t) => {
  const child = spawnCli(['serve', '--agent', 'echo', '--port', '0']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const match = await waitForLine(
    child,
    /^a2a-kit: echo agent at (http:\/\/127\.0\.0\.1:(\d+)) \(card: (\S+)\)$/m,
  );
  const [, url, port, cardUrl] = match;
  assert.notEqual(port, '0');
  assert.equal(cardUrl, `${url}/.well-known/agent-card.json`);

  const cardResponse = await fetch(cardUrl!);
  assert.equal(cardResponse.status, 200);
  const card = (await cardResponse.json()) as {
    name: string;
    supportedInterfaces: { url: string; protocolBinding: string }[];
  };
  assert.equal(card.name, 'echo');
  const jsonrpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  assert.ok(jsonrpc, 'the card lists a JSON-RPC interface');

  const reply = await fetch(jsonrpc.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi from e2e' }] } },
    }),
  });
  assert.equal(reply.status, 200);
  const body = (await reply.json()) as { id: number; result?: { message?: { parts: { text?: string }[] } } };
  assert.equal(body.id, 7);
  assert.equal(body.result?.message?.parts[0]?.text, 'hi from e2e');

  child.kill('SIGTERM');
  assert.equal(await exitCode(child), 0);
});

test('a2a serve with an unknown agent fails with a message and the usage exit code 2', async (t) => {
  const child = spawnCli(['serve', '--agent', 'nope', '--port', '0']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  assert.equal(await exitCode(child), 2);
  assert.match(stderr, /unknown agent "nope"/);
});
