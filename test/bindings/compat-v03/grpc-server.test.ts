/**
 * The v0.3 gRPC service on raw grpc-js calls: bytes that are not the message are
 * INVALID_ARGUMENT, bad resource names are INVALID_ARGUMENT, and `compatV03: false` leaves
 * `a2a.v1.A2AService` unregistered (UNIMPLEMENTED).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { benchCard, benchExecutor } from '../../../src/agents/index.js';
import { GetTaskRequestSchema } from '../../../src/bindings/compat-v03/gen/a2a/v1/a2a_pb.js';
import { createA2AServer } from '../../../src/server/http.js';

async function call(port: number, method: string, bytes: Uint8Array): Promise<ServiceError | undefined> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  try {
    return await new Promise((resolve) => {
      client.makeUnaryRequest(
        `/a2a.v1.A2AService/${method}`,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(bytes),
        (error) => resolve(error ?? undefined),
      );
    });
  } finally {
    client.close();
  }
}

test('v0.3 gRPC bad inputs: garbage bytes, bad names; off with compatV03: false', async (t) => {
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    grpc: { port: 0, host: '127.0.0.1' },
  });
  t.after(() => server.close());
  const { grpcPort } = await server.listen(0, '127.0.0.1');
  const port = grpcPort as number;
  assert.equal((await call(port, 'GetTask', Uint8Array.of(0xff, 0xff, 0xff)))?.code, status.INVALID_ARGUMENT);
  const badName = toBinary(
    GetTaskRequestSchema,
    create(GetTaskRequestSchema, { name: 'task-without-prefix' }),
  );
  const error = await call(port, 'GetTask', badName);
  assert.equal(error?.code, status.INVALID_ARGUMENT);
  assert.match(error?.details ?? '', /tasks\/\{id\}/);
  const unknown = toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { name: 'tasks/nope' }));
  assert.equal((await call(port, 'GetTask', unknown))?.code, status.NOT_FOUND);

  const off = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    grpc: { port: 0, host: '127.0.0.1' },
    compatV03: false,
  });
  t.after(() => off.close());
  const offInfo = await off.listen(0, '127.0.0.1');
  assert.equal((await call(offInfo.grpcPort as number, 'GetTask', unknown))?.code, status.UNIMPLEMENTED);
});
