/**
 * Agents the inspector tests talk to, on 127.0.0.1: the bench agent on createA2AServer (with
 * push delivery to loopback allowed, so the inspector's receiver gets notifications), and a
 * server that answers the card well but every JSON-RPC call with a malformed result.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { benchCard, benchExecutor } from '../../src/agents/bench.js';

/** The bench agent with streaming and push notifications; `close` stops it. */
export async function startBench(
  options: { grpc?: boolean } = {},
): Promise<{ url: string; server: A2AServer; close: () => Promise<void> }> {
  const server = createA2AServer({
    ...(options.grpc ? { grpc: { port: 0, host: '127.0.0.1' } } : {}),
    agent: benchExecutor,
    card: benchCard,
    store: 'memory',
    pushNotifications: true,
    push: { allowHttp: true, allowHosts: ['127.0.0.1'], baseDelayMs: 50 },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { url: url.replace(/\/+$/, ''), server, close: () => server.close() };
}

/**
 * A hand-written JSON-RPC "agent" on 127.0.0.1: a valid card (one JSONRPC interface at
 * `/rpc`), and `answer` for every other request with its body read.
 */
async function startScriptedAgent(
  card: { name: string; description: string; streaming: boolean },
  answer: (body: string, res: ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  let base = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!req.url?.startsWith('/.well-known/agent-card.json')) {
        answer(Buffer.concat(chunks).toString(), res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: card.name,
          description: card.description,
          version: '1',
          supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: card.streaming },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server with a valid card whose JSON-RPC answers break the spec (no jsonrpc, a Task without status). */
export function startMalformed(): Promise<{ url: string; close: () => Promise<void> }> {
  const card = {
    name: 'malformed',
    description: 'answers every call with a broken result',
    streaming: false,
  };
  return startScriptedAgent(card, (body, res) => {
    let id: unknown = null;
    try {
      id = (JSON.parse(body) as { id?: unknown }).id;
    } catch {
      // keep null
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, result: { task: { id: 't1', contextId: 'c1' } } }));
  });
}

/** A plain web server that is not an A2A agent. */
export async function startNotA2A(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>hello</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A JSON-RPC agent whose streams break: SendStreamingMessage and SubscribeToTask answer one
 * event (the task, WORKING), then the connection is destroyed mid-stream.
 */
export function startDropper(): Promise<{ url: string; close: () => Promise<void> }> {
  const card = { name: 'dropper', description: 'drops every stream after its first event', streaming: true };
  return startScriptedAgent(card, (text, res) => {
    const body = JSON.parse(text || '{}') as { id?: unknown };
    const task = {
      id: 'dropped-task',
      contextId: 'ctx-1',
      status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() },
    };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, result: { task } })}\n\n`);
    setTimeout(() => res.socket?.destroy(), 100);
  });
}
