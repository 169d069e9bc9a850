import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  A2AError,
  createError,
  ERROR_CODES,
  errorRow,
  fromJsonRpcError,
  fromRestError,
  InternalError,
  InvalidParamsError,
  overrideErrorStatus,
  readErrorDetails,
  TaskNotCancelableError,
  TaskNotFoundError,
  toJsonRpcError,
  toRestError,
} from '../../src/errors/index.js';

const violations = [{ path: 'message.parts[0]', description: 'exactly one of text, raw, url, data' }];

function sample(code: (typeof ERROR_CODES)[number]): A2AError {
  return createError(code, `${code} happened`, {
    metadata: errorRow(code).reason ? { taskId: 't-1' } : undefined,
    violations: code === 'InvalidParams' ? violations : undefined,
  });
}

describe('JSON-RPC error encoding (SRV-ERR-2/3, N2)', () => {
  for (const code of ERROR_CODES) {
    test(`${code}: encode, then decode to the same error`, () => {
      const err = sample(code);
      const wire = toJsonRpcError(err);
      const row = errorRow(code);
      assert.equal(wire.code, row.jsonRpcCode);
      assert.equal(wire.message, `${code} happened`);
      assert.ok(Array.isArray(wire.data));
      for (const d of wire.data) assert.equal(typeof d['@type'], 'string');
      if (row.reason) {
        assert.deepEqual(wire.data[0], {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: row.reason,
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't-1' },
        });
      }
      const json = JSON.parse(JSON.stringify(wire)) as unknown;
      const status = { PermissionDenied: 403, Unavailable: 503, ResourceExhausted: 429 }[code as string];
      const back = fromJsonRpcError(json, undefined, { httpStatus: status });
      assert.equal(back.code, code);
      assert.equal(back.message, `${code} happened`);
      assert.deepEqual(back.metadata, err.metadata);
      assert.deepEqual(back.violations, err.violations);
      assert.deepEqual(back.raw, json);
      assert.equal(back.constructor, err.constructor);
    });
  }

  test('an unexpected exception becomes -32603 without leaking its message', () => {
    const wire = toJsonRpcError(new Error('password=hunter2'));
    assert.deepEqual(wire, { code: -32603, message: 'Internal error', data: [] });
  });

  test('BadRequest carries the violations (SRV-ERR-4)', () => {
    const wire = toJsonRpcError(
      new InvalidParamsError('message.parts[0]: exactly one of text, raw, url, data', { violations }),
    );
    assert.deepEqual(wire.data, [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'message.parts[0]', description: 'exactly one of text, raw, url, data' }],
      },
    ]);
  });
});

describe('JSON-RPC error decoding is tolerant (N1, N2, CLI-JSON-3)', () => {
  test('reason wins over code', () => {
    const err = fromJsonRpcError({
      code: -32603,
      message: 'x',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_CANCELABLE',
          domain: 'a2a-protocol.org',
        },
      ],
    });
    assert.ok(err instanceof TaskNotCancelableError);
  });

  test('no ErrorInfo: classified by code; v0.3 free-form data kept raw', () => {
    const obj = { code: -32001, message: 'Task not found', data: { taskId: 't' } };
    const err = fromJsonRpcError(obj, { jsonrpc: '2.0', id: 1, error: obj });
    assert.ok(err instanceof TaskNotFoundError);
    assert.deepEqual(err.raw, { jsonrpc: '2.0', id: 1, error: obj });
  });

  test('a reason from another domain is ignored', () => {
    const err = fromJsonRpcError({
      code: -32602,
      message: 'm',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'example.com',
        },
      ],
    });
    assert.equal(err.code, 'InvalidParams');
  });

  test('-32000 with HTTP 401 / 403 (G3)', () => {
    assert.equal(
      fromJsonRpcError({ code: -32000, message: 'no' }, undefined, { httpStatus: 401 }).code,
      'Unauthenticated',
    );
    assert.equal(
      fromJsonRpcError({ code: -32000, message: 'no' }, undefined, { httpStatus: 403 }).code,
      'PermissionDenied',
    );
  });

  const junk: unknown[] = [
    null,
    undefined,
    42,
    'oops',
    [],
    {},
    { code: 'x', message: 5, data: 'nope' },
    { code: -31999, message: '' },
    {
      code: 1.5,
      data: [
        null,
        1,
        'x',
        { '@type': 5 },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: 'x' },
      ],
    },
    {
      code: -32001,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          metadata: { a: 1, b: 'ok', __proto__: 'z' },
        },
      ],
    },
    JSON.parse('{"__proto__":{"polluted":1},"code":-32001}'),
  ];
  test('junk never throws and yields an A2AError', () => {
    for (const j of junk) {
      const err = fromJsonRpcError(j);
      assert.ok(err instanceof A2AError, String(j));
      assert.ok(err.message.length > 0);
    }
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    const withMeta = fromJsonRpcError(junk[9]);
    assert.equal(withMeta.code, 'TaskNotFound');
    assert.deepEqual(withMeta.metadata, { b: 'ok' });
    assert.equal(fromJsonRpcError(junk[7]).code, 'InternalError');
  });
});

describe('REST error encoding (D13, N14)', () => {
  for (const code of ERROR_CODES) {
    test(`${code}: envelope, then decode to the same error`, () => {
      const err = sample(code);
      const row = errorRow(code);
      const wire = toRestError(err);
      assert.equal(wire.status, row.httpStatus);
      assert.equal(wire.contentType, 'application/a2a+json');
      assert.equal(wire.body.error.code, row.httpStatus);
      assert.equal(wire.body.error.status, row.grpcStatus);
      assert.equal(wire.body.error.message, `${code} happened`);
      assert.deepEqual(wire.body.error.details, err.details());
      const text = JSON.stringify(wire.body);
      const back = fromRestError(wire.status, text);
      const sameStatus = ERROR_CODES.filter((c) => errorRow(c).httpStatus === row.httpStatus);
      // Without an ErrorInfo reason, the HTTP status is only a hint (several rows share 400/500).
      if (row.reason || sameStatus.length === 1) assert.equal(back.code, code);
      assert.equal(back.message, `${code} happened`);
      assert.equal(back.receivedStatus, row.httpStatus);
      assert.deepEqual(back.metadata, err.metadata);
      assert.deepEqual(back.violations, err.violations);
      assert.deepEqual(back.raw, JSON.parse(text));
      assert.deepEqual(fromRestError(wire.status, JSON.parse(text)).code, back.code);
    });
  }

  test('content type follows the request (N14)', () => {
    const e = new TaskNotFoundError();
    assert.equal(toRestError(e, 'application/json').contentType, 'application/json');
    assert.equal(toRestError(e, 'application/json; charset=utf-8').contentType, 'application/json');
    assert.equal(
      toRestError(e, 'application/a2a+json, application/json').contentType,
      'application/a2a+json',
    );
    assert.equal(toRestError(e, 'text/html').contentType, 'application/a2a+json');
  });

  test('statuses follow overrides (N1), the reason stays', () => {
    overrideErrorStatus('TaskNotCancelable', { httpStatus: 409 });
    try {
      const wire = toRestError(new TaskNotCancelableError());
      assert.equal(wire.status, 409);
      assert.equal(wire.body.error.code, 409);
      assert.equal(fromRestError(409, wire.body).code, 'TaskNotCancelable');
    } finally {
      overrideErrorStatus('TaskNotCancelable', undefined);
    }
  });

  test('unknown failures do not leak', () => {
    const wire = toRestError(new TypeError('secret'));
    assert.equal(wire.status, 500);
    assert.deepEqual(wire.body, {
      error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] },
    });
  });
});

describe('REST error decoding, every body shape in D13 order', () => {
  const info = (reason: string) => ({
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain: 'a2a-protocol.org',
  });

  test('1. envelope with details[]', () => {
    const err = fromRestError(409, {
      error: {
        code: 409,
        status: 'FAILED_PRECONDITION',
        message: 'done already',
        details: [info('TASK_NOT_CANCELABLE')],
      },
    });
    assert.equal(err.code, 'TaskNotCancelable');
    assert.equal(err.message, 'done already');
    assert.equal(err.receivedStatus, 409);
  });

  test('2. bare google.rpc.Status', () => {
    const err = fromRestError(400, { code: 9, message: 'nope', details: [info('VERSION_NOT_SUPPORTED')] });
    assert.equal(err.code, 'VersionNotSupported');
    assert.equal(err.message, 'nope');
  });

  test('3. RFC 9457 problem details', () => {
    const err = fromRestError(
      400,
      JSON.stringify({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'pageSize must be <= 100',
        errors: [{ field: 'pageSize', message: 'too large' }],
      }),
    );
    assert.equal(err.code, 'InvalidParams');
    assert.equal(err.message, 'pageSize must be <= 100');
    assert.deepEqual(err.violations, [{ path: 'pageSize', description: 'too large' }]);
    assert.equal(fromRestError(404, { title: 'Not Found' }).message, 'Not Found');
  });

  test('4. v0.3 {code, message, data}', () => {
    const err = fromRestError(400, { code: -32004, message: 'Unsupported', data: { x: 1 } });
    assert.equal(err.code, 'UnsupportedOperation');
    assert.deepEqual(err.raw, { code: -32004, message: 'Unsupported', data: { x: 1 } });
  });

  test('5. plain text, classified by status', () => {
    const err = fromRestError(503, 'upstream overloaded\n');
    assert.equal(err.code, 'Unavailable');
    assert.equal(err.message, 'upstream overloaded');
    assert.equal(err.raw, 'upstream overloaded\n');
    assert.equal(fromRestError(401, '').code, 'Unauthenticated');
    assert.equal(fromRestError(403, '<html>denied</html>').code, 'PermissionDenied');
    assert.equal(fromRestError(500, new TextEncoder().encode('boom')).message, 'boom');
  });

  test('junk never throws', () => {
    const bodies: unknown[] = [
      null,
      undefined,
      0,
      true,
      [],
      {},
      '{',
      '{"error":null}',
      { error: 'text' },
      { error: { details: 'x', message: 7 } },
      { details: [1, null] },
      'x'.repeat(100_000),
      JSON.parse('{"__proto__":{"p":1}}'),
    ];
    for (const status of [0, 200, 400, 404, 418, 500, 599, Number.NaN, -1]) {
      for (const body of bodies) {
        const err = fromRestError(status, body);
        assert.ok(err instanceof A2AError);
        assert.ok(err.message.length > 0 && err.message.length <= 1000);
      }
    }
    assert.equal(fromRestError(200, '{"error":"quota exceeded"}').message, 'quota exceeded');
  });

  test('readErrorDetails ignores foreign details', () => {
    assert.deepEqual(
      readErrorDetails([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }]),
      { metadata: {}, violations: [] },
    );
    assert.equal(readErrorDetails('no').reason, undefined);
  });

  test('toA2AError round trip keeps the class', () => {
    assert.ok(fromRestError(500, toRestError(new InternalError()).body) instanceof InternalError);
  });
});
