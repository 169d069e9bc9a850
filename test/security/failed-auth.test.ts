/**
 * Issue 27, deliver 2 (SRV-TRUST-10): failed authentication is logged without the credential,
 * counted in metrics, and an address that keeps guessing is answered 429 before its
 * authenticators run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { metricReader } from '../server/observability/otel-setup.js';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer } from '../../src/server/http.js';

const card = {
  name: 'guarded',
  description: 'Guards its keys',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};

async function failures(outcome: string): Promise<number> {
  const { resourceMetrics } = await metricReader.collect();
  let total = 0;
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics) {
      if (m.descriptor.name !== 'a2a.server.auth.failures') continue;
      for (const p of m.dataPoints as DataPoint<number>[])
        if (p.attributes['a2a.auth.outcome'] === outcome) total += p.value;
    }
  return total;
}

test('SRV-TRUST-10: bad credentials are logged (no secret), counted, then throttled per address', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const server = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card,
    store: 'memory',
    logger: pino({ level: 'info' }, sink),
    security: {
      authenticators: [createApiKeyAuthenticator({ keys: { 'k-good': 'alice' } })],
      failedAuth: { burst: 3, perMinute: 1 },
    },
  });
  t.after(() => server.close());
  const { url } = await server.listen(0, '127.0.0.1');
  const list = (key?: string) =>
    fetch(`${url}/a2a/rest/tasks`, {
      headers: { 'a2a-version': '1.0', ...(key ? { 'x-api-key': key } : {}) },
    });
  const before = await failures('invalid');
  // Asking without a credential is how a client learns the challenge: never charged.
  for (let i = 0; i < 5; i++) assert.equal((await list()).status, 401);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await list(`guess-secret-${i}`)).status);
  // Three guesses in the bucket, the fourth empties it: from then on, 429 before authenticating.
  assert.deepEqual(statuses, [401, 401, 401, 401, 429]);
  const locked = await list('k-good');
  assert.equal(locked.status, 429);
  assert.ok(Number(locked.headers.get('retry-after')) >= 1);
  assert.equal((await failures('invalid')) - before, 4);
  assert.ok((await failures('throttled')) >= 2);
  const logged = lines.filter((l) => l['event'] === 'auth.failed');
  assert.equal(logged.length, 9);
  assert.equal(logged.at(-1)?.['remoteAddress'], '127.0.0.1');
  assert.equal(logged.at(-1)?.['kind'], 'invalid');
  assert.doesNotMatch(JSON.stringify(lines), /guess-secret|k-good/);
});

test('SRV-TRUST-10: failedAuth: false never throttles', async (t) => {
  const server = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card,
    store: 'memory',
    security: {
      authenticators: [createApiKeyAuthenticator({ keys: { 'k-good': 'alice' } })],
      failedAuth: false,
    },
  });
  t.after(() => server.close());
  const { url } = await server.listen(0, '127.0.0.1');
  for (let i = 0; i < 40; i++) {
    const reply = await fetch(`${url}/a2a/rest/tasks`, {
      headers: { 'a2a-version': '1.0', 'x-api-key': 'no' },
    });
    assert.equal(reply.status, 401);
  }
  const good = await fetch(`${url}/a2a/rest/tasks`, {
    headers: { 'a2a-version': '1.0', 'x-api-key': 'k-good' },
  });
  assert.equal(good.status, 200);
});
