/**
 * gRPC behaves like the HTTP bindings on the client: `streamIdleTimeoutMs` ends a silent
 * stream with A2ATimeoutError, and a connection failure is A2ATransportError with the network
 * code, while an UNAVAILABLE that a server sends with A2A error details stays a protocol error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Metadata,
  Server as GrpcServer,
  ServerCredentials,
  status as GrpcStatus,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { GRPC_METHODS } from '../../src/bindings/grpc/service.js';
import { asBuffer, encodeMessage } from '../../src/bindings/grpc/encode.js';
import { encodeStatusDetails } from '../../src/bindings/grpc/status.js';
import { createTransport } from '../../src/client/binding-selection.js';
import { A2AClient } from '../../src/client/client.js';
import { A2ATimeoutError, A2ATransportError } from '../../src/errors/client-errors.js';
import { UnavailableError } from '../../src/errors/index.js';

const iface = (protocolBinding: string, url: string) => ({ url, protocolBinding, protocolVersion: '1.0' });

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('gRPC client: idle timeout and error classes', () => {
  let server: GrpcServer;
  let target: string;
  const held: ServerWritableStream<Buffer, Buffer>[] = [];
  before(async () => {
    server = new GrpcServer();
    const sub = GRPC_METHODS.SubscribeToTask;
    // One Task snapshot, then silence (the call is held open until the test ends).
    server.register(
      sub.path,
      (call: ServerWritableStream<Buffer, Buffer>) => {
        held.push(call);
        call.write(
          asBuffer(
            encodeMessage(sub.output, {
              task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } },
            }),
          ),
        );
      },
      (b: Buffer) => b,
      (b: Buffer) => b,
      'serverStream',
    );
    // A server's own UNAVAILABLE, with the A2A error details.
    server.register(
      GRPC_METHODS.GetTask.path,
      (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const error = new UnavailableError('busy, retry later');
        const metadata = new Metadata();
        metadata.set(
          'grpc-status-details-bin',
          Buffer.from(encodeStatusDetails(error, GrpcStatus.UNAVAILABLE)),
        );
        callback({ code: GrpcStatus.UNAVAILABLE, details: error.message, metadata });
      },
      (b: Buffer) => b,
      (b: Buffer) => b,
      'unary',
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    target = `127.0.0.1:${port}`;
  });
  after(() => {
    for (const call of held) call.end();
    server.forceShutdown();
  });

  test('streamIdleTimeoutMs (the client option) ends a silent gRPC stream with A2ATimeoutError', async () => {
    const t = await createTransport(iface('GRPC', target), { streamIdleTimeoutMs: 300 });
    const got: unknown[] = [];
    try {
      await assert.rejects(
        (async () => {
          for await (const e of t.subscribeToTask({ id: 't1' })) got.push(e);
        })(),
        (e: unknown) => e instanceof A2ATimeoutError && e.timeoutMs === 300,
      );
      assert.equal(got.length, 1, 'the snapshot came first');
    } finally {
      await t.close();
    }
  });

  test('an UNAVAILABLE sent by a server with A2A details stays UnavailableError', async () => {
    const t = await createTransport(iface('GRPC', target), {});
    try {
      await assert.rejects(t.getTask({ id: 't1' }), (e: unknown) => {
        assert.ok(e instanceof UnavailableError, String(e));
        assert.match(e.message, /busy, retry later/);
        return true;
      });
    } finally {
      await t.close();
    }
  });

  test('connection refused: the same A2ATransportError and code on every binding', async () => {
    const port = await deadPort();
    for (const [binding, url] of [
      ['JSONRPC', `http://127.0.0.1:${port}/a2a/jsonrpc`],
      ['HTTP+JSON', `http://127.0.0.1:${port}/a2a/rest`],
      ['GRPC', `127.0.0.1:${port}`],
    ] as const) {
      const c = new A2AClient(await createTransport(iface(binding, url), {}), undefined, { retry: false });
      try {
        await assert.rejects(c.getTask('t1'), (e: unknown) => {
          assert.ok(e instanceof A2ATransportError, `${binding}: ${String(e)}`);
          assert.equal(e.networkCode, 'ECONNREFUSED', binding);
          return true;
        });
        await assert.rejects(
          (async () => {
            for await (const _ of c.subscribeToTask('t1')) void _;
          })(),
          (e: unknown) => e instanceof A2ATransportError && e.networkCode === 'ECONNREFUSED',
          binding,
        );
      } finally {
        await c.close();
      }
    }
  });
});
