/**
 * One decode path for stream events on every binding: a peer's status update without
 * `contextId` (ProtoJSON omits empty strings; the official SDK sends such updates) reads as
 * `contextId: ""` on JSON-RPC, REST and gRPC alike, and an event that cannot be decoded fails
 * the same way on all three.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as GrpcServer, ServerCredentials, type ServerWritableStream } from '@grpc/grpc-js';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { GRPC_METHODS } from '../../src/bindings/grpc/service.js';
import { asBuffer, encodeMessage } from '../../src/bindings/grpc/encode.js';
import { A2AInvalidResponseError } from '../../src/errors/client-errors.js';
import type { Transport } from '../../src/bindings/transport.js';
import type { StreamResponse } from '../../src/model/schema.js';

/** What the peer streams for task `ok`, and for task `bad` (an update without taskId). */
const SCRIPTS: Record<string, unknown[]> = {
  ok: [
    { task: { id: 'ok', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
    {
      artifactUpdate: {
        taskId: 'ok',
        artifact: {
          artifactId: 'a',
          parts: [{ text: 'x' }, { url: 'https://example.com/y', mediaType: 'text/plain' }],
        },
        lastChunk: true,
      },
    },
    { statusUpdate: { taskId: 'ok', status: { state: 'TASK_STATE_CANCELED' } } },
  ],
  bad: [
    { task: { id: 'bad', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
    { statusUpdate: { contextId: 'c1', status: { state: 'TASK_STATE_CANCELED' } } },
  ],
};

const idOf = (body: string, url: string): string => {
  if (body) {
    const parsed = JSON.parse(body) as { params?: { id?: string } };
    if (parsed.params?.id) return parsed.params.id;
  }
  return /tasks\/([^/:]+):subscribe/.exec(url)?.[1] ?? '';
};

describe('stream events decode alike on every binding', () => {
  let http: HttpServer;
  let grpc: GrpcServer;
  const transports: Record<string, Transport> = {};
  before(async () => {
    http = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const jsonrpc = req.url === '/jsonrpc';
        const rpcId = jsonrpc ? (JSON.parse(body) as { id: number }).id : 0;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of SCRIPTS[idOf(jsonrpc ? body : '', req.url ?? '')] ?? []) {
          const data = jsonrpc ? { jsonrpc: '2.0', id: rpcId, result: event } : event;
          res.write(`data: ${JSON.stringify(data)}\n\n`);
        }
        res.end();
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    grpc = new GrpcServer();
    const m = GRPC_METHODS.SubscribeToTask;
    grpc.register(
      m.path,
      (call: ServerWritableStream<Buffer, Buffer>) => {
        const id = (JSON.parse(call.request.toString()) as { id: string }).id;
        for (const event of SCRIPTS[id] ?? []) call.write(asBuffer(encodeMessage(m.output, event)));
        call.end();
      },
      (b: Buffer) => b,
      // Decode the request to JSON text so the handler can read the task id.
      (b: Buffer) => Buffer.from(JSON.stringify({ id: /[a-z]+/.exec(b.subarray(2).toString())?.[0] })),
      'serverStream',
    );
    const port = await new Promise<number>((resolve, reject) =>
      grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    transports.JSONRPC = new JsonRpcTransport(`${base}/jsonrpc`);
    transports.REST = new RestTransport(`${base}/rest`);
    transports.GRPC = new GrpcTransport(`127.0.0.1:${port}`);
  });
  after(async () => {
    for (const t of Object.values(transports)) await t.close();
    http.closeAllConnections();
    http.close();
    grpc.forceShutdown();
  });

  test('an update without contextId reads as contextId "" everywhere, identically', async () => {
    const seen: Record<string, StreamResponse[]> = {};
    for (const [name, t] of Object.entries(transports)) {
      seen[name] = [];
      for await (const e of t.subscribeToTask({ id: 'ok' })) seen[name].push(e);
    }
    const json = seen.JSONRPC as StreamResponse[];
    assert.equal(json.length, 3);
    assert.equal(json[1]?.artifactUpdate?.contextId, '');
    assert.deepEqual(json[1]?.artifactUpdate?.artifact.parts[1], {
      url: 'https://example.com/y',
      mediaType: 'text/plain',
    });
    assert.equal(json[2]?.statusUpdate?.contextId, '');
    assert.equal(json[2]?.statusUpdate?.status.state, 'TASK_STATE_CANCELED');
    assert.deepEqual(seen.REST, json);
    assert.deepEqual(seen.GRPC, json);
  });

  test('an update without taskId is an invalid response everywhere', async () => {
    for (const [name, t] of Object.entries(transports)) {
      const got: StreamResponse[] = [];
      await assert.rejects(
        (async () => {
          for await (const e of t.subscribeToTask({ id: 'bad' })) got.push(e);
        })(),
        (e: unknown) => {
          assert.ok(e instanceof A2AInvalidResponseError, `${name}: ${String(e)}`);
          assert.equal(e.reason, 'not-a2a', name);
          assert.match(e.message, /statusUpdate\.taskId/, name);
          return true;
        },
      );
      assert.equal(got.length, 1, name);
    }
  });
});
