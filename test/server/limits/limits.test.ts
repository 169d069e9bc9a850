/** Per-principal token buckets and concurrency caps, on a controlled clock. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConcurrencyLimiter, RateLimiter, principalKey } from '../../../src/server/limits/index.js';
import {
  ResourceExhaustedError,
  errorRow,
  fromJsonRpcError,
  fromRestError,
  toJsonRpcError,
} from '../../../src/errors/index.js';
import { createCallContext } from '../../../src/core/context.js';

describe('token bucket per principal', () => {
  test('a burst passes, then refusals say when to retry; tokens come back with time', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
    for (let i = 0; i < 3; i++) assert.equal(limiter.take('alice').ok, true);
    const refused = limiter.take('alice');
    assert.deepEqual(refused, { ok: false, retryAfterSeconds: 1 });
    assert.equal(limiter.take('bob').ok, true, 'another principal has its own bucket');
    now += 500; // one token at 2/s
    assert.deepEqual(limiter.take('alice'), { ok: true, remaining: 0 });
    assert.equal(limiter.take('alice').ok, false);
    now += 10_000;
    assert.deepEqual(limiter.take('alice'), { ok: true, remaining: 2 }, 'never more than the burst');
    assert.throws(() => new RateLimiter({ ratePerSecond: 0 }), RangeError);
  });

  test('a slow rate gives a longer Retry-After; consume throws 429 / RESOURCE_EXHAUSTED', () => {
    const now = 0;
    const limiter = new RateLimiter({ ratePerSecond: 0.1, burst: 1, now: () => now });
    limiter.consume('k');
    assert.throws(
      () => limiter.consume('k'),
      (e: unknown) => e instanceof ResourceExhaustedError && e.retryAfterSeconds === 10,
    );
    const row = errorRow('ResourceExhausted');
    assert.equal(row.httpStatus, 429);
    assert.equal(row.grpcStatus, 'RESOURCE_EXHAUSTED');
  });

  test('the map stays bounded: refilled buckets are swept, the least recently used goes first', () => {
    let now = 0;
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 100, now: () => now });
    for (let i = 0; i < 1000; i++) limiter.take(`p${i}`);
    assert.equal(limiter.size, 100);
    limiter.take('hot');
    assert.equal(limiter.take('hot').ok, false, 'a recently used bucket is kept');
    now += 5_000; // everyone refilled
    for (let i = 0; i < 50; i++) limiter.take(`late${i}`);
    assert.ok(limiter.size <= 100);
    assert.ok(limiter.size < 100, `refilled buckets were swept (size ${limiter.size})`);
  });

  test('SRV-TRUST-5: the key is the caller, whatever tenant it names; anonymous callers by address', () => {
    const a = principalKey(createCallContext({ tenant: 't1', principal: { id: 'apiKey:alice' } }));
    const b = principalKey(createCallContext({ tenant: 't2', principal: { id: 'apiKey:alice' } }));
    assert.equal(a, b);
    assert.notEqual(a, principalKey(createCallContext({ principal: { id: 'bearer:alice' } })));
    const anon = (id: string) =>
      principalKey(
        createCallContext({ principal: { id, claims: { anonymous: true, remoteAddress: '192.0.2.7' } } }),
      );
    assert.equal(anon('anonymous:http:1'), anon('anonymous:http:2'));
    // Without an address (fetch runtimes), per-request anonymous principals share one key.
    const bare = (id: string) =>
      principalKey(createCallContext({ principal: { id, claims: { anonymous: true } } }));
    assert.equal(bare('anonymous:request:1'), bare('anonymous:request:2'));
  });
});

describe('concurrency caps', () => {
  test('per key and in total; release is idempotent and frees the key', () => {
    const limiter = new ConcurrencyLimiter({ maxPerKey: 2, maxTotal: 3, what: 'streams' });
    const r1 = limiter.acquire('alice');
    const r2 = limiter.acquire('alice');
    assert.throws(
      () => limiter.acquire('alice'),
      (e: unknown) =>
        e instanceof ResourceExhaustedError && /streams for this caller \(limit 2\)/.test(e.message),
    );
    const r3 = limiter.acquire('bob');
    assert.throws(() => limiter.acquire('carol'), /on this server/);
    assert.equal(limiter.total, 3);
    r1();
    r1();
    assert.equal(limiter.active('alice'), 1);
    assert.equal(limiter.total, 2);
    r2();
    r3();
    assert.equal(limiter.active('alice'), 0);
    assert.equal(limiter.total, 0);
    assert.ok(limiter.tryAcquire('alice'));
  });
});

describe('ResourceExhausted on the wire', () => {
  test('JSON-RPC -32000 with HTTP 429 and REST 429 decode back to ResourceExhausted', () => {
    const err = new ResourceExhaustedError('slow down', { retryAfterSeconds: 2.2 });
    assert.equal(err.retryAfterSeconds, 3);
    const wire = toJsonRpcError(err);
    assert.equal(wire.code, -32000);
    assert.equal(
      fromJsonRpcError(JSON.parse(JSON.stringify(wire)), undefined, { httpStatus: 429 }).code,
      'ResourceExhausted',
    );
    assert.equal(fromRestError(429, 'Too Many Requests').code, 'ResourceExhausted');
  });
});
