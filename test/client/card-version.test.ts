/**
 * Spec 3.6.1: the client sends `A2A-Version` on every request, the card fetch included. A
 * server that serves v0.3 and v1.0 at one URL (Mastra does) reads a missing header as v0.3 and
 * answers with its v0.3 card; the client must get the v1.0 card and speak v1.0 (issue 29).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2AClient } from '../../src/client/index.js';
import { createA2AServer } from '../../src/server/http.js';

test('the card fetch sends A2A-Version: 1.0, so a dual-version server answers with its v1.0 card', async (t) => {
  const a2a = createA2AServer({
    store: 'memory',
    agent: async (_ctx, task) => task.complete('ok'),
    card: {
      name: 'dual',
      description: 'v0.3 and v1.0 at one URL',
      version: '1.0.0',
      skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
    },
  });
  const cardVersions: (string | undefined)[] = [];
  const methods: string[] = [];
  let base = '';
  const http = createServer((req, res) => {
    const version = req.headers['a2a-version'] as string | undefined;
    if (req.url === '/.well-known/agent-card.json') {
      cardVersions.push(version);
      if (version === undefined || version.startsWith('0.')) {
        // What a dual-version server serves when the header is missing: its v0.3 card.
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            protocolVersion: '0.3.0',
            name: 'dual',
            description: 'v0.3 and v1.0 at one URL',
            url: `${base}/a2a/jsonrpc`,
            preferredTransport: 'JSONRPC',
            version: '1.0.0',
            capabilities: { streaming: true },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
          }),
        );
        return;
      }
    }
    // Everything else goes to the A2A server, JSON-RPC methods recorded on the way
    // (v1.0 `SendMessage`, v0.3 `message/send`).
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') methods.push((JSON.parse(body.toString()) as { method: string }).method);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`${base}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(req.method === 'POST' ? { body } : {}),
      });
      void a2a.fetch(request).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await a2a.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = await A2AClient.connect(base);
  t.after(() => client.close());
  assert.deepEqual(cardVersions, ['1.0']);
  assert.equal(client.card.supportedInterfaces[0]?.protocolVersion, '1.0');
  await client.send({ text: 'hi' });
  assert.deepEqual(methods, ['SendMessage']);
});
