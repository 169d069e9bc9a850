import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkRequest,
  checkWireObject,
  DEFAULT_VALIDATION_LIMITS,
  REQUEST_VALIDATORS,
  WIRE_VALIDATORS,
} from '../../src/model/validators.js';
import { parseRequest, parseWireObject } from '../../src/errors/validation.js';
import { OPERATIONS, type A2AMethod } from '../../src/model/operations.js';
import {
  A2AError,
  InvalidAgentResponseError,
  InvalidParamsError,
  MethodNotFoundError,
} from '../../src/errors/index.js';
import { fixture, type FixtureName } from '../support/fixtures.js';
import { assertProtoJson } from '../support/oracle.js';

const METHODS = Object.keys(OPERATIONS) as A2AMethod[];
const REQUEST_FIXTURE: Record<A2AMethod, FixtureName> = {
  SendMessage: 'SendMessageRequest',
  SendStreamingMessage: 'SendMessageRequest',
  GetTask: 'GetTaskRequest',
  ListTasks: 'ListTasksRequest',
  CancelTask: 'CancelTaskRequest',
  SubscribeToTask: 'SubscribeToTaskRequest',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfigRequest',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsRequest',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfigRequest',
  GetExtendedAgentCard: 'GetExtendedAgentCardRequest',
};

const send = (message: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
  message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...message },
  ...rest,
});

function invalid(fn: () => unknown): InvalidParamsError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidParamsError, `expected InvalidParamsError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected InvalidParamsError');
}

describe('parseRequest: canonical input (fast path)', () => {
  for (const method of METHODS) {
    test(`${method}: the valid fixture comes back as the very same object`, () => {
      const params = fixture(REQUEST_FIXTURE[method]);
      const before = JSON.stringify(params);
      assert.equal(parseRequest(method, params), params);
      assert.equal(JSON.stringify(params), before);
      assert.ok(REQUEST_VALIDATORS[method].is(params));
    });
  }

  test('GetExtendedAgentCard without params (JSON-RPC may omit them)', () => {
    assert.deepEqual(parseRequest('GetExtendedAgentCard', undefined), {});
    assert.deepEqual(parseRequest('GetExtendedAgentCard', null), {});
  });

  test('unknown method is MethodNotFound, not a crash', () => {
    assert.throws(() => parseRequest('message/send' as A2AMethod, {}), MethodNotFoundError);
  });
});

describe('parseRequest: normalization (SRV-JSON-1/2/6/11, D5, N17, G14)', () => {
  test('enum integers and v0.3 spellings', () => {
    assert.equal(parseRequest('SendMessage', send({ role: 1 })).message.role, 'ROLE_USER');
    assert.equal(parseRequest('SendMessage', send({ role: 'user' })).message.role, 'ROLE_USER');
    assert.equal(parseRequest('SendMessage', send({ role: 'agent' })).message.role, 'ROLE_AGENT');
    assert.equal(parseRequest('ListTasks', { status: 2 }).status, 'TASK_STATE_WORKING');
    assert.equal(parseRequest('ListTasks', { status: 'input-required' }).status, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(parseRequest('ListTasks', { status: 'TASK_STATE_CANCELLED' }).status, 'TASK_STATE_CANCELED');
  });

  test('ROLE_UNSPECIFIED is not a role for a sent message', () => {
    const err = invalid(() => parseRequest('SendMessage', send({ role: 0 })));
    assert.equal(err.violations[0]?.path, 'message.role');
  });

  test('snake_case field names, unknown fields dropped, nulls as absent', () => {
    const params = {
      message: {
        message_id: 'm-2',
        context_id: 'c-1',
        role: 'ROLE_USER',
        kind: 'message',
        parts: [{ kind: 'text', text: 'hi', media_type: 'text/plain' }],
        metadata: null,
      },
      configuration: { history_length: 3, return_immediately: true, blocking: false },
      somethingNew: { x: 1 },
    };
    const copy = structuredClone(params);
    const out = parseRequest('SendMessage', params);
    assert.deepEqual(out, {
      message: {
        messageId: 'm-2',
        contextId: 'c-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hi', mediaType: 'text/plain' }],
      },
      configuration: { historyLength: 3, returnImmediately: true },
    });
    assert.deepEqual(params, copy, 'the caller object is not modified');
    assertProtoJson('SendMessageRequest', out);
  });

  test('configuration.pushNotificationConfig is an alias, v0.3 schemes[] becomes scheme (D5)', () => {
    const out = parseRequest(
      'SendMessage',
      send(
        {},
        {
          configuration: {
            pushNotificationConfig: {
              url: 'https://h.example.com',
              authentication: { schemes: ['Bearer'], credentials: 'c' },
            },
          },
        },
      ),
    );
    assert.deepEqual(out.configuration, {
      taskPushNotificationConfig: {
        url: 'https://h.example.com',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      },
    });
    const both = parseRequest(
      'SendMessage',
      send(
        {},
        {
          configuration: {
            pushNotificationConfig: { url: 'https://old' },
            taskPushNotificationConfig: { url: 'https://new' },
          },
        },
      ),
    );
    assert.equal(both.configuration?.taskPushNotificationConfig?.url, 'https://new');
  });

  test('numeric strings for int32 (REST query values), timestamps with offsets normalized to UTC', () => {
    const out = parseRequest('ListTasks', {
      pageSize: '20',
      historyLength: '0',
      includeArtifacts: 'true',
      statusTimestampAfter: '2026-03-14T10:26:53.589123+01:00',
    });
    assert.deepEqual(out, {
      pageSize: 20,
      historyLength: 0,
      includeArtifacts: true,
      statusTimestampAfter: '2026-03-14T09:26:53.589Z',
    });
  });

  test('violations after normalization keep the camelCase path', () => {
    const err = invalid(() =>
      parseRequest('SendMessage', { message: { message_id: '', role: 'user', parts: [{ text: 'x' }] } }),
    );
    assert.deepEqual(err.violations, [{ path: 'message.messageId', description: 'must not be empty' }]);
  });
});

describe('parseRequest: limits', () => {
  test('a 10 MB text part where the limit is lower', () => {
    const err = invalid(() =>
      parseRequest('SendMessage', send({ parts: [{ text: 'x'.repeat(10_000_000) }] }), {
        maxTextLength: 1_000_000,
      }),
    );
    assert.deepEqual(err.violations, [
      { path: 'message.parts[0].text', description: 'longer than 1000000 characters' },
    ]);
    assert.equal(err.message, 'message.parts[0].text: longer than 1000000 characters');
  });

  test('too many parts', () => {
    const parts = Array.from({ length: DEFAULT_VALIDATION_LIMITS.maxParts + 1 }, () => ({ text: 'a' }));
    assert.equal(
      invalid(() => parseRequest('SendMessage', send({ parts }))).violations[0]?.path,
      'message.parts',
    );
    assert.ok(parseRequest('SendMessage', send({ parts }), { maxParts: 1000 }));
  });

  test('metadata too large, data too large, nesting too deep, raw and url too long', () => {
    const big = { blob: 'x'.repeat(200) };
    const cases: [Record<string, unknown>, Record<string, number>, string][] = [
      [send({}, { metadata: big }), { maxMetadataSize: 100 }, 'metadata'],
      [send({ metadata: big }), { maxMetadataSize: 100 }, 'message.metadata'],
      [
        send({ parts: [{ text: 'a', metadata: big }] }),
        { maxMetadataSize: 100 },
        'message.parts[0].metadata',
      ],
      [send({ parts: [{ data: big }] }), { maxDataSize: 100 }, 'message.parts[0].data'],
      [send({ parts: [{ data: 'y'.repeat(500) }] }), { maxDataSize: 100 }, 'message.parts[0].data'],
      [send({ parts: [{ raw: 'QUJD'.repeat(100) }] }), { maxRawLength: 100 }, 'message.parts[0].raw'],
      [
        send({ parts: [{ url: `https://x.example.com/${'a'.repeat(200)}` }] }),
        { maxUrlLength: 100 },
        'message.parts[0].url',
      ],
      [{ id: 't', metadata: big }, { maxMetadataSize: 100 }, 'metadata'],
    ];
    for (const [params, limits, path] of cases) {
      const method: A2AMethod = 'message' in params ? 'SendMessage' : 'CancelTask';
      const err = invalid(() => parseRequest(method, params, limits));
      assert.equal(err.violations[0]?.path, path, JSON.stringify(err.violations));
    }
  });

  test('checkRequest reports without throwing', () => {
    const r = checkRequest('GetTask', {});
    assert.equal(r.ok, false);
    assert.ok(checkRequest('GetTask', { id: 't' }).ok);
  });
});

describe('hostile input never escapes as an untyped exception', () => {
  let deep: Record<string, unknown> = {};
  const root = deep;
  for (let i = 0; i < 50_000; i++) {
    const next: Record<string, unknown> = {};
    deep['a'] = next;
    deep = next;
  }
  const deepArray: unknown[] = [];
  let cur = deepArray;
  for (let i = 0; i < 50_000; i++) {
    const next: unknown[] = [];
    cur.push(next);
    cur = next;
  }
  const inputs: [string, unknown][] = [
    ['null', null],
    ['array', [1, 2]],
    ['number', 42],
    ['string', 'SendMessage'],
    ['boolean', true],
    ['deep object as metadata', send({}, { metadata: root })],
    ['deep array as data', send({ parts: [{ data: deepArray }] })],
    ['deep object as message', { message: root }],
    ['deep object in unknown field', { ...send({}), extra: root }],
    ['huge string id', { id: 'x'.repeat(20_000_000) }],
    ['huge raw part', send({ parts: [{ raw: 'QUJD'.repeat(5_000_000) + '!' }] })],
    ['huge array of parts', send({ parts: Array.from({ length: 100_000 }, () => ({ text: 'a' })) })],
    [
      '__proto__ keys',
      JSON.parse(
        '{"__proto__":{"polluted":1},"message":{"__proto__":{"x":1},"messageId":"m","role":"user","parts":[{"text":"a","__proto__":{"y":2}}]}}',
      ),
    ],
    ['constructor keys', JSON.parse('{"constructor":{"prototype":{"polluted":1}},"id":"t"}')],
    ['parts is an object', send({ parts: { 0: { text: 'a' }, length: 1 } })],
  ];
  for (const method of METHODS) {
    test(`${method}: every hostile input gives an A2AError or a clean value`, () => {
      for (const [label, input] of inputs) {
        try {
          const out = parseRequest(method, input);
          assert.equal(typeof out, 'object', label);
        } catch (err) {
          assert.ok(err instanceof A2AError, `${label}: ${String(err)}`);
          assert.equal(err.code, 'InvalidParams', label);
        }
      }
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.equal((Object.prototype as unknown as Record<string, unknown>)['polluted'], undefined);
    });
  }

  test('__proto__ keys are dropped, never become the prototype', () => {
    const out = parseRequest(
      'SendMessage',
      JSON.parse('{"message":{"__proto__":{"x":1},"messageId":"m","role":"user","parts":[{"text":"a"}]}}'),
    );
    assert.equal(Object.getPrototypeOf(out.message), Object.prototype);
    assert.equal((out.message as unknown as Record<string, unknown>)['x'], undefined);
  });

  test('parseWireObject with hostile input throws only A2AErrors', () => {
    for (const [label, input] of inputs) {
      for (const name of Object.keys(WIRE_VALIDATORS) as (keyof typeof WIRE_VALIDATORS)[]) {
        try {
          parseWireObject(name, input);
        } catch (err) {
          assert.ok(err instanceof InvalidAgentResponseError, `${name} ${label}: ${String(err)}`);
        }
      }
    }
  });
});

describe('parseWireObject: lenient client side (CLI-JSON-2, N4, N5)', () => {
  test('valid fixtures pass unchanged', () => {
    for (const name of [
      'Task',
      'Message',
      'StreamResponse',
      'SendMessageResponse',
      'ListTasksResponse',
      'AgentCard',
      'TaskPushNotificationConfig',
      'ListTaskPushNotificationConfigsResponse',
    ] as const) {
      const value = fixture(name);
      assert.equal(parseWireObject(name, value), value, name);
      assert.ok(WIRE_VALIDATORS[name].is(value), name);
    }
  });

  test('unknown enum values become UNSPECIFIED; unknown fields dropped', () => {
    const task = parseWireObject('Task', {
      id: 't',
      kind: 'task',
      status: { state: 'TASK_STATE_PAUSED' },
      history: [{ messageId: 'm', role: 'ROLE_ROBOT', parts: [{ text: 'a' }] }],
    });
    assert.deepEqual(task, {
      id: 't',
      status: { state: 'TASK_STATE_UNSPECIFIED' },
      history: [{ messageId: 'm', role: 'ROLE_UNSPECIFIED', parts: [{ text: 'a' }] }],
    });
    assert.equal(
      parseWireObject('Task', { id: 't', status: { state: 99 } }).status.state,
      'TASK_STATE_UNSPECIFIED',
    );
    assert.equal(parseWireObject('Task', { id: 't', status: {} }).status.state, 'TASK_STATE_UNSPECIFIED');
  });

  test('absent REQUIRED lists and scalars take defaults; empty REQUIRED arrays accepted', () => {
    assert.deepEqual(parseWireObject('ListTasksResponse', { tasks: [] }), {
      tasks: [],
      nextPageToken: '',
      pageSize: 0,
      totalSize: 0,
    });
    const card = parseWireObject('AgentCard', {
      name: 'x',
      version: '1',
      supportedInterfaces: [],
      skills: [],
    });
    assert.deepEqual(card.defaultInputModes, []);
    assert.deepEqual(card.capabilities, {});
    assert.equal(card.description, '');
    assert.deepEqual(
      parseWireObject('StreamResponse', { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } }),
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } },
    );
  });

  test('Empty may be {} or null (CLI-JSON-4)', () => {
    assert.deepEqual(parseWireObject('Empty', null), {});
    assert.deepEqual(parseWireObject('Empty', {}), {});
  });

  test('an unusable object is InvalidAgentResponse with paths', () => {
    const r = checkWireObject('StreamResponse', {
      task: { id: 't', status: { state: 'TASK_STATE_WORKING' } },
      message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] },
    });
    assert.equal(r.ok, false);
    assert.throws(
      () => parseWireObject('Task', { status: { state: 'TASK_STATE_WORKING' } }),
      (err: unknown) => {
        assert.ok(err instanceof InvalidAgentResponseError);
        assert.deepEqual(err.violations, [{ path: 'id', description: 'required' }]);
        return true;
      },
    );
  });
});
