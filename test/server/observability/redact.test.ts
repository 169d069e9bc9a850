/** Redaction by field name and by value shape; the pretty log formatter. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPretty, redactValue, safeUrl, scrubText } from '../../../src/server/observability/index.js';

test('credential shapes in free text are masked', () => {
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig-part_1';
  const out = scrubText(
    `Authorization: Bearer abc.def-123 / Basic dXNlcjpwdw== / ${jwt} / api_key=k-1 / "token": "t-2" / https://u:pw@h.test/x`,
  );
  for (const secret of ['abc.def-123', 'dXNlcjpwdw==', jwt, 'k-1', 't-2', 'u:pw'])
    assert.ok(!out.includes(secret), secret);
  assert.match(out, /Basic \[redacted\]/);
  assert.equal(scrubText('a plain sentence about tokens'), 'a plain sentence about tokens');
});

test('registered values are masked anywhere', () => {
  assert.equal(scrubText('key sk-12345 in a message', new Set(['sk-12345'])), 'key [redacted] in a message');
});

test('secret-named fields are replaced at any depth; URLs lose their query', () => {
  const value = redactValue({
    url: 'https://h.test/cb?token=q',
    token: 't',
    authentication: { scheme: 'Bearer', credentials: 'c' },
    headers: { Authorization: 'x', 'X-API-Key': 'y', 'X-A2A-Notification-Token': 'z', accept: 'json' },
  });
  assert.deepEqual(value, {
    url: 'https://h.test/cb',
    token: '[redacted]',
    authentication: { scheme: 'Bearer', credentials: '[redacted]' },
    headers: {
      Authorization: '[redacted]',
      'X-API-Key': '[redacted]',
      'X-A2A-Notification-Token': '[redacted]',
      accept: 'json',
    },
  });
  assert.equal(safeUrl('not a url?token=1'), 'not a url');
});

test('pretty lines: time, level, message, fields, then the stack', () => {
  const line = formatPretty(
    JSON.stringify({
      level: 50,
      time: Date.UTC(2026, 0, 1, 12, 0, 1, 234),
      msg: 'agent failed',
      taskId: 't 1',
      err: { stack: 'Error: x\n    at f' },
    }),
  );
  // eslint-disable-next-line no-control-regex
  const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
  assert.equal(plain, '12:00:01.234 ERROR agent failed taskId="t 1"\n    Error: x\n        at f\n');
  assert.equal(formatPretty('not json'), 'not json\n');
});

test('createLogger: secret-named fields an application logs are redacted, the rest kept as given', async () => {
  const { PassThrough } = await import('node:stream');
  const { createLogger } = await import('../../../src/server/observability/logging.js');
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const logger = createLogger({ destination: out });
  const plain = { op: 'SendMessage', taskId: 't-1', nested: { a: [1, { b: 2 }] } };
  logger.info(plain, 'request');
  logger.info(
    {
      token: 't',
      headers: { Authorization: 'x', 'x-api-key': 'y', accept: 'json' },
      configs: [{ authentication: { credentials: 'c', scheme: 'Bearer' } }],
    },
    'app line',
  );
  await new Promise((resolve) => setImmediate(resolve));
  const [first, second] = chunks
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(first!.nested, plain.nested);
  assert.equal(second!.token, '[redacted]');
  assert.deepEqual(second!.headers, {
    Authorization: '[redacted]',
    'x-api-key': '[redacted]',
    accept: 'json',
  });
  assert.deepEqual(second!.configs, [{ authentication: { credentials: '[redacted]', scheme: 'Bearer' } }]);
  // The caller's object is not changed.
  assert.equal(plain.taskId, 't-1');
});
