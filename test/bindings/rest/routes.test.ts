/** REST route matching (spec §11.3, D1, G8). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { matchRoute } from '../../../src/bindings/rest/routes.js';

function route(verb: string, path: string) {
  const r = matchRoute(verb, path);
  return r.kind === 'match' ? r.route : r;
}

describe('matchRoute', () => {
  test('every route, with and without a tenant', () => {
    const cases: [string, string, string, Record<string, string>][] = [
      ['POST', '/message:send', 'SendMessage', {}],
      ['POST', '/message:stream', 'SendStreamingMessage', {}],
      ['GET', '/tasks/t1', 'GetTask', { taskId: 't1' }],
      ['GET', '/tasks', 'ListTasks', {}],
      ['POST', '/tasks/t1:cancel', 'CancelTask', { taskId: 't1' }],
      ['GET', '/tasks/t1:subscribe', 'SubscribeToTask', { taskId: 't1' }],
      ['POST', '/tasks/t1:subscribe', 'SubscribeToTask', { taskId: 't1' }],
      ['POST', '/tasks/t1/pushNotificationConfigs', 'CreateTaskPushNotificationConfig', { taskId: 't1' }],
      ['GET', '/tasks/t1/pushNotificationConfigs', 'ListTaskPushNotificationConfigs', { taskId: 't1' }],
      [
        'GET',
        '/tasks/t1/pushNotificationConfigs/c1',
        'GetTaskPushNotificationConfig',
        { taskId: 't1', configId: 'c1' },
      ],
      [
        'DELETE',
        '/tasks/t1/pushNotificationConfigs/c1',
        'DeleteTaskPushNotificationConfig',
        { taskId: 't1', configId: 'c1' },
      ],
      ['GET', '/extendedAgentCard', 'GetExtendedAgentCard', {}],
    ];
    for (const [verb, path, method, values] of cases) {
      for (const tenant of ['', 'acme']) {
        const r = route(verb, (tenant ? `/${tenant}` : '') + path) as Record<string, unknown>;
        assert.equal(r.method, method, `${verb} ${path} ${tenant}`);
        assert.equal(r.tenant, tenant);
        for (const [k, v] of Object.entries(values)) assert.equal(r[k], v);
      }
    }
  });

  test('G8: routes without a tenant win', () => {
    assert.deepEqual(
      { ...(route('GET', '/tasks/tasks') as object), query: undefined },
      { method: 'GetTask', tenant: '', taskId: 'tasks', query: undefined },
    );
  });

  test('percent-encoded ids are decoded; a colon inside an id stays', () => {
    assert.equal((route('GET', '/tasks/a%2Fb') as { taskId: string }).taskId, 'a/b');
    assert.equal((route('GET', '/tasks/a:b') as { taskId: string }).taskId, 'a:b');
    assert.equal((route('POST', '/tasks/a%3Ab:cancel') as { taskId: string }).taskId, 'a:b');
  });

  test('wrong verbs and unknown paths', () => {
    assert.deepEqual(route('DELETE', '/tasks/x'), { kind: 'wrong-verb', allow: 'GET' });
    assert.deepEqual(route('PUT', '/tasks/x:subscribe'), { kind: 'wrong-verb', allow: 'GET, POST' });
    assert.deepEqual(route('GET', '/message:send'), { kind: 'wrong-verb', allow: 'POST' });
    for (const path of [
      '/',
      '',
      '/nope',
      '/tasks//',
      '/a/b/c/d/e/f',
      '/tasks//pushNotificationConfigs',
      '/card',
    ]) {
      assert.deepEqual(route('GET', path), { kind: 'none' }, path);
    }
  });

  test('one trailing slash is ignored', () => {
    assert.equal((route('GET', '/tasks/') as { method: string }).method, 'ListTasks');
    assert.equal((route('GET', '/tasks/x/') as { taskId: string }).taskId, 'x');
    assert.equal((route('POST', '/acme/message:send/') as { tenant: string }).tenant, 'acme');
  });
});
