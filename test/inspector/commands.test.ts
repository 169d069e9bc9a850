/**
 * "Copy as curl" sends the same request: the command made from a recorded exchange, run by a
 * shell, gets the agent's answer (a body with quotes and non-ASCII text included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { curlOf, a2aCommandOf } from '../../src/inspector/page/commands.js';
import { WireLog, capturingFetch } from '../../src/inspector/wire.js';
import { startBench } from './agents.js';

const run = promisify(execFile);

test('the curl command of a recorded JSON-RPC call gets the same answer', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const log = new WireLog();
  const fetchImpl = capturingFetch(log, 's', () => 'JSONRPC');
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'SendMessage',
    params: {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'echo:it\'s Ünïcode "quoted"' }] },
    },
  });
  const response = await fetchImpl(`${bench.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body,
  });
  const direct = (await response.json()) as { result: { message: { parts: { text: string }[] } } };
  const exchange = log.list().at(-1);
  assert.ok(exchange);
  assert.equal(exchange.request.body, body);
  const command = curlOf(exchange);
  const { stdout } = await run('bash', ['-c', `${command} --silent`]);
  const viaCurl = JSON.parse(stdout) as typeof direct;
  assert.equal(viaCurl.result.message.parts[0]?.text, direct.result.message.parts[0]?.text);
  assert.equal(viaCurl.result.message.parts[0]?.text, 'it\'s Ünïcode "quoted"');
  assert.equal(a2aCommandOf(exchange, bench.url), `a2a send ${bench.url} 'echo:it'\\''s Ünïcode "quoted"'`);
});
