import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary, toJson, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import {
  ListTasksResponseSchema,
  type Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
} from '../../../src/bindings/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { decodeMessage, fillRequired } from '../../../src/bindings/grpc/decode.js';
import { encodeFast, encodeMessage } from '../../../src/bindings/grpc/encode.js';
import { fromGrpcError, toGrpcStatus } from '../../../src/bindings/grpc/status.js';
import {
  InternalError,
  InvalidParamsError,
  TaskNotFoundError,
  UnavailableError,
  VersionNotSupportedError,
} from '../../../src/errors/a2a-error.js';

const message = {
  messageId: 'm-1',
  contextId: 'c-1',
  taskId: 't-1',
  role: 'ROLE_AGENT',
  parts: [
    { text: 'hello', mediaType: 'text/plain', metadata: { k: 'v' } },
    { raw: 'aGVsbG8=', filename: 'h.txt' },
    { url: 'https://example.test/f' },
    { data: { a: 1.5, b: [true, null, 'x', { deep: [] }], c: {} } },
    { data: 'just a string' },
    { data: null },
  ],
  metadata: { nested: { x: [1, 2] } },
  extensions: ['https://ext.test/a'],
  referenceTaskIds: ['t-0'],
};
const task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_WORKING', message, timestamp: '2026-03-04T05:06:07.123456Z' },
  artifacts: [{ artifactId: 'a', name: 'n', description: 'd', parts: [{ text: 'x' }], extensions: ['e'] }],
  history: [message, { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: '' }] }],
  metadata: {},
};

const samples: [DescMessage, unknown][] = [
  [TaskSchema, task],
  [TaskSchema, { id: 't', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '1969-12-31T23:59:59.5Z' } }],
  [
    TaskSchema,
    { id: 't', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-01-01T01:00:00+01:00' } },
  ],
  [SendMessageResponseSchema, { task }],
  [SendMessageResponseSchema, { message }],
  [StreamResponseSchema, { task }],
  [
    StreamResponseSchema,
    {
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_COMPLETED' },
        metadata: { q: 1 },
      },
    },
  ],
  [
    StreamResponseSchema,
    {
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        artifact: task.artifacts[0],
        append: true,
        lastChunk: false,
      },
    },
  ],
  [
    SendMessageRequestSchema,
    {
      tenant: 'acme',
      message,
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0, returnImmediately: true },
      metadata: { m: 'x' },
    },
  ],
];

describe('gRPC wire conversion', () => {
  test('the fast encoder writes exactly what protobuf-es writes', () => {
    for (const [schema, value] of samples) {
      const fast = encodeFast(schema, value);
      const generic = encodeMessage(schema, value);
      assert.deepEqual(decodeMessage(schema, fast), decodeMessage(schema, generic), schema.typeName);
      assert.deepEqual(Buffer.from(fast), Buffer.from(generic), schema.typeName);
    }
  });

  test('round trip keeps the ProtoJSON model', () => {
    assert.deepEqual(
      decodeMessage(SendMessageResponseSchema, encodeFast(SendMessageResponseSchema, { message })),
      {
        message,
      },
    );
  });

  test('values the fast path does not expect fall back to the strict generic path', () => {
    // An enum given as its number is valid ProtoJSON input, handled by the generic path.
    const t = { id: 't', status: { state: 3 } };
    assert.deepEqual(encodeFast(TaskSchema, t), encodeMessage(TaskSchema, t));
    assert.throws(() => encodeFast(TaskSchema, { id: 't', status: { state: 'BOGUS' } }));
    assert.throws(() => encodeFast(SendMessageResponseSchema, { task, message }));
  });

  test('fillRequired restores REQUIRED defaults that ProtoJSON omits', () => {
    const empty = decodeMessage(
      ListTasksResponseSchema,
      encodeMessage(ListTasksResponseSchema, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 }),
    );
    assert.deepEqual(empty, {});
    assert.deepEqual(fillRequired(ListTasksResponseSchema, empty), {
      tasks: [],
      nextPageToken: '',
      pageSize: 0,
      totalSize: 0,
    });
    const t = fillRequired(
      TaskSchema,
      decodeMessage(
        TaskSchema,
        encodeMessage(TaskSchema, { id: 't', status: { state: 'TASK_STATE_WORKING' } }),
      ),
    );
    assert.deepEqual(t, { id: 't', status: { state: 'TASK_STATE_WORKING' } });
  });

  test('errors survive the trip through google.rpc.Status', () => {
    const cases = [
      new TaskNotFoundError('gone', { metadata: { taskId: 't-9' } }),
      new VersionNotSupportedError(undefined, { metadata: { supportedVersions: '1.0' } }),
      new InvalidParamsError('bad', {
        violations: [{ path: 'message.parts', description: 'needs at least 1 item(s)' }],
      }),
    ];
    for (const original of cases) {
      const status = toGrpcStatus(original);
      const back = fromGrpcError({ code: status.code, details: status.details, metadata: status.metadata });
      assert.equal(back.constructor, original.constructor);
      assert.equal(back.message, original.message);
      assert.deepEqual(back.metadata, original.metadata);
      assert.deepEqual(back.violations, original.violations);
    }
    const internal = toGrpcStatus(new Error('db password is hunter2'));
    assert.equal(internal.code, 13);
    assert.ok(!internal.details.includes('hunter2'));
    assert.ok(fromGrpcError(internal) instanceof InternalError);
  });
  test('a stream cut without any gRPC status (the server went away mid-call) is Unavailable, so retried', () => {
    // What grpc-js reports when a server stream is reset at a shutdown before its trailers.
    const cut = fromGrpcError({
      code: 13,
      details: 'Received RST_STREAM with code 0 (Call ended without gRPC status)',
    });
    assert.ok(cut instanceof UnavailableError);
    // A server's own INTERNAL stays InternalError.
    assert.ok(fromGrpcError({ code: 13, details: 'Internal error' }) instanceof InternalError);
  });
  test('the direct SendMessageRequest decoder gives exactly what toJson gives', () => {
    const cases: MessageInitShape<typeof SendMessageRequestSchema>[] = [
      {},
      { message: {} },
      {
        tenant: 'acme',
        message: {
          messageId: 'm',
          contextId: 'c',
          taskId: 't',
          role: 1,
          parts: [
            { content: { case: 'text', value: '' } },
            { content: { case: 'text', value: 'x' }, filename: 'f.txt', mediaType: 'text/plain' },
          ],
          extensions: ['https://example.com/ext'],
          referenceTaskIds: ['r'],
        },
      },
      { message: { role: 2, parts: [{ content: { case: 'url', value: 'https://example.com/a' } }] } },
      { message: { role: 2, parts: [{ content: { case: 'text', value: 'x' }, metadata: { a: 1 } }] } },
      { message: { role: 1, parts: [{ content: { case: 'text', value: 'x' } }], metadata: { a: 'b' } } },
      { message: { role: 1 }, configuration: { historyLength: 2 }, metadata: { k: true } },
      { message: { role: 7 as Role } },
      { message: { parts: [{}] } },
    ];
    for (const init of cases) {
      const request = create(SendMessageRequestSchema, init);
      assert.deepEqual(
        decodeMessage(SendMessageRequestSchema, toBinary(SendMessageRequestSchema, request)),
        toJson(SendMessageRequestSchema, request, { alwaysEmitImplicit: false }),
      );
    }
  });
});
