/**
 * Client interceptors and the habits built from them (retry, re-authentication, capability
 * checks from the operation table), against our own server in memory: no socket.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { A2AClient, type A2AClientOptions } from '../../src/client/client.js';
import { inMemoryFetch } from '../../src/client/in-memory.js';
import { isCallOf, type ClientInterceptor } from '../../src/client/interceptor.js';
import { customAuth } from '../../src/client/auth.js';
import { textOf } from '../../src/client/artifacts.js';
import { A2ATransportError } from '../../src/errors/client-errors.js';
import { PushNotificationNotSupportedError, UnauthenticatedError } from '../../src/errors/index.js';

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'ask') return task.requireInput('which one?');
    return task.reply(`echo: ${ctx.text}`);
  },
};

/** Fails the first `n` attempts of every call as a refused connection, counting attempts. */
const flaky = (n: number) => {
  const attempts: string[] = [];
  const interceptor: ClientInterceptor = (next) => (call) => {
    attempts.push(call.method);
    if (attempts.filter((m) => m === call.method).length <= n) {
      return Promise.reject(new A2ATransportError('refused', { networkCode: 'ECONNREFUSED' }));
    }
    return next(call);
  };
  return { attempts, interceptor };
};

describe('client interceptors (in memory)', () => {
  let server: A2AServer;
  const url = 'http://interceptors.test';
  before(() => {
    server = createA2AServer({
      agent,
      card: {
        name: 'ours',
        description: 'd',
        version: '1',
        skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
      },
    });
  });
  after(() => server.close());
  const connect = (options: A2AClientOptions = {}) =>
    A2AClient.connect(url, { fetch: inMemoryFetch(server), timeoutMs: 10_000, ...options });

  test('the first interceptor is the outermost; a call may change headers; isCallOf narrows', async () => {
    const order: string[] = [];
    const seen: { header?: string; messageId?: string }[] = [];
    const outer: ClientInterceptor = (next) => async (call) => {
      order.push('outer>');
      const options = { ...call.options, headers: { ...call.options.headers, 'x-trace': 't1' } };
      const result = await next({ ...call, options });
      order.push('<outer');
      return result;
    };
    const inner: ClientInterceptor = (next) => async (call) => {
      order.push('inner>');
      seen.push({
        header: call.options.headers?.['x-trace'],
        ...(isCallOf(call, 'SendMessage') ? { messageId: call.request.message.messageId } : {}),
      });
      const result = await next(call);
      order.push('<inner');
      return result;
    };
    const c = await connect({ interceptors: [outer, inner] });
    const r = await c.send({ text: 'hi', messageId: 'm-1' });
    assert.ok(r.kind === 'message');
    assert.equal(textOf(r.message), 'echo: hi');
    assert.deepEqual(order, ['outer>', 'inner>', '<inner', '<outer']);
    assert.deepEqual(seen, [{ header: 't1', messageId: 'm-1' }]);
  });

  test('an interceptor sees stream events and may wrap them', async () => {
    let events = 0;
    const counting: ClientInterceptor = (next) => async (call) => {
      const reply = await next(call);
      if (!call.operation.streaming) return reply;
      const source = reply as AsyncIterable<unknown>;
      return (async function* () {
        for await (const e of source) {
          events++;
          yield e;
        }
      })() as typeof reply;
    };
    const c = await connect({ interceptors: [counting] });
    const got = [];
    for await (const e of c.stream({ text: 'streamed' })) got.push(e);
    assert.ok(got.length > 0);
    assert.equal(events, got.length);
  });

  test('retries: safe unary calls again with the same messageId; streams never', async () => {
    const { attempts, interceptor } = flaky(1);
    const ids: string[] = [];
    const record: ClientInterceptor = (next) => (call) => {
      if (isCallOf(call, 'SendMessage')) ids.push(call.request.message.messageId);
      return next(call);
    };
    // One interface only: a refused connection would otherwise move to the next (failover).
    const c = await connect({
      interceptors: [record, interceptor],
      retry: { baseDelayMs: 1 },
      failover: false,
    });
    const r = await c.send({ text: 'again' });
    assert.ok(r.kind === 'message');
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
    const ask = await c.send({ text: 'ask' });
    assert.ok(ask.kind === 'task');
    await c.getTask(ask.task.id);
    assert.deepEqual(attempts, ['SendMessage', 'SendMessage', 'SendMessage', 'GetTask', 'GetTask']);
    // SendStreamingMessage is not safe to repeat (the table): the first failure is final.
    attempts.length = 0;
    await assert.rejects(async () => {
      for await (const e of c.stream({ text: 'once' })) void e;
    }, A2ATransportError);
    assert.deepEqual(attempts, ['SendStreamingMessage']);
    // `retry: false` turns retries off.
    const once = flaky(1);
    const d = await connect({ interceptors: [once.interceptor], retry: false, failover: false });
    await assert.rejects(d.getTask(ask.task.id), A2ATransportError);
    assert.deepEqual(once.attempts, ['GetTask']);
  });

  test('capabilities from the table: no call leaves for an operation the card lacks', async () => {
    const { attempts, interceptor } = flaky(0);
    const c = await connect({ interceptors: [interceptor] });
    assert.equal(c.card?.capabilities.pushNotifications, false);
    await assert.rejects(
      c.createTaskPushNotificationConfig({ taskId: 't', url: 'https://example.com/h' }),
      PushNotificationNotSupportedError,
    );
    await assert.rejects(c.getTaskPushNotificationConfig('t', 'c'), PushNotificationNotSupportedError);
    assert.deepEqual(attempts, []);
  });

  test('failover runs outside the caller interceptors: an undelivered stream moves on', async () => {
    const { attempts, interceptor } = flaky(1);
    const c = await connect({ interceptors: [interceptor], bindings: ['JSONRPC', 'HTTP+JSON'] });
    const events = [];
    for await (const e of c.stream({ text: 'moved' })) events.push(e);
    assert.ok(events.length > 0);
    assert.deepEqual(attempts, ['SendStreamingMessage', 'SendStreamingMessage']);
    assert.equal(c.binding, 'HTTP+JSON');
  });

  test('re-authentication: after Unauthenticated, fresh credentials and one more try', async () => {
    let token = 'old';
    let refreshes = 0;
    const auth = customAuth(
      () => ({ headers: { authorization: `Bearer ${token}` } }),
      async () => {
        refreshes++;
        token = 'new';
        return true;
      },
    );
    // Stands in for a server that accepts only the new token.
    const sent: string[] = [];
    const gate: ClientInterceptor = (next) => (call) => {
      const header = call.options.headers?.authorization ?? '';
      sent.push(header);
      if (header !== 'Bearer new') return Promise.reject(new UnauthenticatedError('token expired'));
      return next(call);
    };
    const c = await connect({ auth, interceptors: [gate] });
    const r = await c.send({ text: 'hi' });
    assert.ok(r.kind === 'message');
    assert.deepEqual(sent, ['Bearer old', 'Bearer new']);
    assert.equal(refreshes, 1);
    // Streams too, before their first event.
    token = 'old';
    sent.length = 0;
    const events = [];
    for await (const e of c.stream({ text: 's' })) events.push(e);
    assert.ok(events.length > 0);
    assert.deepEqual(sent, ['Bearer old', 'Bearer new']);
    // Only once per call: a refresh that does not help ends with the error.
    const stubborn = await connect({
      auth: customAuth(
        () => ({ headers: { authorization: 'Bearer old' } }),
        async () => true,
      ),
      interceptors: [gate],
    });
    sent.length = 0;
    await assert.rejects(stubborn.getTask('t'), UnauthenticatedError);
    assert.deepEqual(sent, ['Bearer old', 'Bearer old']);
  });
});
