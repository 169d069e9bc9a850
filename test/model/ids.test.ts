import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/model/ids.js';

test('minted ids are UUIDv7: creation time first, version 7, variant 10, 74 random bits (G16)', () => {
  const before = Date.now();
  const ids = Array.from({ length: 5000 }, () => newId());
  const after = Date.now();
  const shape = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  for (const id of ids) assert.match(id, shape);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of [ids[0]!, ids.at(-1)!]) {
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    assert.ok(ms >= before && ms <= after, `${id}: ${ms} not within [${before}, ${after}]`);
  }
  // Minted one after another, they sort by time (ids of one millisecond in any order).
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]!.slice(0, 13) >= ids[i - 1]!.slice(0, 13));
  // Every random digit takes every value somewhere (the pool is really used).
  const digits = new Set(ids.map((id) => id[35]));
  assert.equal(digits.size, 16);
});
