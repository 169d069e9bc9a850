/**
 * A server that streams an artifact in `append: true` chunks and then resends the whole
 * artifact on its last chunk (Google ADK does) must not make `a2a send --stream` print the text
 * twice: the CLI shows what the artifact assembler holds (issue 29). a2a-kit's own server refuses
 * that sequence, so a small server here streams it as ADK does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runSend } from '../../src/cli/send.js';
import type { ClientCommandIO } from '../../src/cli/common.js';

/** Strips the colour codes picocolors may add. */
const plain = (text: string): string =>
  text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

const ids = { taskId: 't-1', contextId: 'c-1' };
const chunk = (text: string, flags: { append?: boolean; lastChunk?: boolean }): unknown => ({
  artifactUpdate: { ...ids, artifact: { artifactId: 'answer', name: 'answer', parts: [{ text }] }, ...flags },
});
/** What ADK streams: append-chunks, then the whole artifact again as the last chunk. */
const EVENTS = [
  { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_WORKING' } } },
  chunk('Hello, ', { append: true }),
  chunk('world', { append: true }),
  chunk('Hello, world', { append: false, lastChunk: true }),
  { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } },
];

/** An ADK-like agent on 127.0.0.1: its card, and SendStreamingMessage answered with EVENTS. */
async function adkLikeServer(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  let base = '';
  const http = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'adk-like',
          description: 'resends the whole artifact on its last chunk',
          version: '1.0.0',
          supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
        }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const result of EVENTS) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => http.close(() => resolve())));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return base;
}

for (const growing of [true, false]) {
  test(`a whole artifact resent on the last chunk is shown once (${growing ? 'text in place' : 'line per chunk'})`, async (t) => {
    const url = await adkLikeServer(t);
    let screen = '';
    const io: ClientCommandIO = {
      out: (line) => (screen += `${line}\n`),
      err: (line) => (screen += `${line}\n`),
      setExitCode: () => {},
      ...(growing ? { write: (text: string) => (screen += text) } : {}),
    };
    await runSend(io, url, 'hi', { stream: true });
    const text = plain(screen);
    assert.match(text, /completed/, `printed:\n${text}`);
    assert.equal(text.split('world').length - 1, 1, `printed:\n${text}`);
  });
}
