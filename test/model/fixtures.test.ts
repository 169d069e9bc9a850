import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TSchema } from '@sinclair/typebox';
import * as schemas from '../../src/model/schema.js';
import { compile } from '../../src/model/validate.js';
import { parseRequest } from '../../src/errors/validation.js';
import { InvalidParamsError } from '../../src/errors/index.js';
import { fixture, fixtures, invalidFixtures, variants, type FixtureName } from '../support/fixtures.js';
import { assertProtoJson, protoJsonProblems, protoMessageNames } from '../support/oracle.js';

const schemaOf = (name: string): TSchema => {
  const s = (schemas as unknown as Record<string, TSchema>)[name];
  assert.ok(s, `schema.ts exports no ${name}`);
  return s;
};

describe('fixtures: one valid object per proto message', () => {
  test('every message of a2a.proto (and Empty) has a fixture', () => {
    const missing = protoMessageNames().filter((n) => !(n in fixtures));
    assert.deepEqual(missing, []);
    assert.ok('Empty' in fixtures);
  });

  for (const name of Object.keys(fixtures) as FixtureName[]) {
    test(`${name} passes the TypeBox validator and the ProtoJSON oracle`, () => {
      const value = fixture(name);
      const checked = compile(schemaOf(name)).check(value);
      assert.ok(checked.ok, `TypeBox rejected ${name}: ${JSON.stringify(!checked.ok && checked.violations)}`);
      assertProtoJson(name === 'Empty' ? 'google.protobuf.Empty' : name, value);
    });
  }

  for (const v of variants) {
    test(`${v.name} (${v.label}) passes both`, () => {
      const checked = compile(schemaOf(v.name)).check(v.value);
      assert.ok(checked.ok, JSON.stringify(!checked.ok && checked.violations));
      assertProtoJson(v.name, v.value);
    });
  }

  test('fixture() returns a private copy', () => {
    const a = fixture('Task');
    a.id = 'changed';
    assert.notEqual(fixtures.Task.id, 'changed');
  });
});

describe('invalid requests: violations name the path (SRV-JSON-5, SRV-JSON-10)', () => {
  for (const f of invalidFixtures) {
    test(`${f.method}: ${f.label}`, () => {
      assert.throws(
        () => parseRequest(f.method, f.params),
        (err: unknown) => {
          assert.ok(err instanceof InvalidParamsError);
          assert.deepEqual(err.violations, f.violations);
          const expected = f.violations
            .map((v) => (v.path ? `${v.path}: ${v.description}` : v.description))
            .join('; ');
          assert.equal(err.message, expected);
          assert.equal(err.code, 'InvalidParams');
          assert.ok(err.details().some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest'));
          return true;
        },
      );
    });
  }
});

describe('ProtoJSON oracle rejects what we must never emit', () => {
  const task = () =>
    fixture('Task') as unknown as Record<string, unknown> & { status: Record<string, unknown> };
  const cases: [string, string, unknown, RegExp][] = [
    ['unknown field', 'Task', { ...task(), kind: 'task' }, /fromJson/],
    ['null field', 'Task', { ...task(), metadata: null }, /metadata: null/],
    [
      'timestamp without milliseconds',
      'Task',
      { ...task(), status: { ...task().status, timestamp: '2026-03-14T09:26:53Z' } },
      /status\.timestamp/,
    ],
    [
      'timestamp with an offset',
      'Task',
      { ...task(), status: { ...task().status, timestamp: '2026-03-14T10:26:53.589+01:00' } },
      /status\.timestamp/,
    ],
    ['enum as a number', 'Task', { ...task(), status: { state: 3 } }, /status\.state: enum written as 3/],
    ['v0.3 enum spelling', 'Task', { ...task(), status: { state: 'completed' } }, /fromJson/],
    ['snake_case name', 'Task', { ...task(), context_id: 'c' }, /write the camelCase name contextId/],
    [
      'missing REQUIRED field (N5)',
      'ListTasksResponse',
      { tasks: [], pageSize: 50, totalSize: 0 },
      /nextPageToken: REQUIRED field missing/,
    ],
    [
      'missing REQUIRED nested field',
      'Task',
      { id: 't', status: {} },
      /status\.state: REQUIRED field missing/,
    ],
    [
      'int32 as a string',
      'ListTasksResponse',
      { tasks: [], nextPageToken: '', pageSize: '50', totalSize: 0 },
      /pageSize: 32-bit integer/,
    ],
    ['URL-safe base64', 'Part', { raw: 'a-_b' }, /standard padded base64/],
    ['two oneof members', 'Part', { text: 'a', url: 'https://x' }, /fromJson/],
  ];
  for (const [label, name, json, pattern] of cases) {
    test(label, () => {
      const problems = protoJsonProblems(name, json);
      assert.ok(
        problems.some((p) => pattern.test(p)),
        `expected ${pattern} in ${JSON.stringify(problems)}`,
      );
      assert.throws(() => assertProtoJson(name, json), /not valid ProtoJSON/);
    });
  }

  test('null inside Struct content is user data, not a field', () => {
    assertProtoJson('Task', { ...task(), metadata: { note: null } });
  });

  test('google.protobuf.Empty is {}', () => {
    assertProtoJson('google.protobuf.Empty', {});
    assert.throws(() => assertProtoJson('google.protobuf.Empty', { x: 1 }));
  });
});
