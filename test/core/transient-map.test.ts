import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TransientIndex, TransientMap } from '../../src/core/transient-map.js';

describe('TransientMap', () => {
  test('behaves as a map through deletes, re-adds and the rebuilds they lead to', () => {
    const map = new TransientMap<string, number>();
    const model = new Map<string, number>();
    // Deterministic churn: mostly short-lived keys, some long-lived ones.
    for (let i = 0; i < 5000; i++) {
      const key = `k${i % 97 === 0 ? i % 10 : i}`;
      map.set(key, i);
      model.set(key, i);
      if (i >= 3) {
        const old = `k${i - 3}`;
        assert.equal(map.delete(old), model.delete(old), `delete ${old}`);
      }
      assert.equal(map.size, model.size);
    }
    assert.deepEqual(new Map(map.entries()), model);
    assert.deepEqual([...map.values()].sort(), [...model.values()].sort());
    for (const key of model.keys()) {
      assert.equal(map.get(key), model.get(key));
      assert.equal(map.has(key), true);
    }
    assert.equal(model.has('k100'), false);
    assert.equal(map.get('k100'), undefined);
    assert.equal(map.has('k100'), false);
    assert.equal(map.delete('k100'), false);
    map.set('k100', -1);
    assert.equal(map.get('k100'), -1);
    assert.equal(map.size, model.size + 1);
  });

  test('an emptied map is empty, and takes new entries', () => {
    const map = new TransientMap<object, string>();
    const keys = Array.from({ length: 200 }, () => ({}));
    for (const key of keys) map.set(key, 'v');
    for (const key of keys) assert.equal(map.delete(key), true);
    assert.equal(map.size, 0);
    assert.deepEqual([...map.entries()], []);
    map.set(keys[0]!, 'again');
    assert.deepEqual([...map.values()], ['again']);
  });
});

describe('TransientIndex', () => {
  test('keeps tenants apart, and serves a tenant again after its entries were all gone', () => {
    const index = new TransientIndex<string>();
    index.set('a', 't1', 'a1');
    index.set('b', 't1', 'b1');
    assert.equal(index.get('a', 't1'), 'a1');
    assert.equal(index.get('b', 't1'), 'b1');
    assert.equal(index.has('c', 't1'), false);
    // Enough deletes to prune emptied tenants several times over.
    for (let i = 0; i < 300; i++) {
      index.set('a', `x${i}`, 'x');
      assert.equal(index.delete('a', `x${i}`), true);
    }
    assert.equal(index.delete('a', 't1'), true);
    assert.equal(index.delete('a', 't1'), false);
    for (let i = 0; i < 100; i++) {
      index.set('c', `y${i}`, 'y');
      index.delete('c', `y${i}`);
    }
    assert.equal(index.get('a', 't1'), undefined);
    assert.equal(index.size, 1);
    assert.deepEqual([...index.values()], ['b1']);
    index.set('a', 't1', 'a2');
    assert.equal(index.get('a', 't1'), 'a2');
    assert.equal(index.size, 2);
  });
});
