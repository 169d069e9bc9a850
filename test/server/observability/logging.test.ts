/**
 * Structured logs: one line per request with the documented fields, task state changes at
 * debug, a failing agent's stack in the log but only its message at the client, and no
 * configured token or API key in any line, whichever field carried it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { A2AClient } from '../../../src/client/index.js';
import type { BindingName } from '../../../src/client/binding-selection.js';
import { createA2AServer } from '../../../src/server/index.js';
import { pushLogger } from '../../../src/server/observability/index.js';
import { TEST_CARD } from '../../support/handler.js';

/** A pino logger at debug whose lines land in `lines`. */
function capture(): { logger: pino.Logger; lines: string[]; entries: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

// Secrets the application configured (it knows them: registered with `redactValues`).
const API_KEY = 'ak_live_0123456789abcdef';
// Secrets only the callers know: masked by field name and by shape.
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcGVyYXRvciJ9.c2lnbmF0dXJlLXNlY3JldA';
const OPAQUE_BEARER = 'opaque-bearer-7f3c9a1b2d';
const PUSH_TOKEN = 'push-token-5e6f7a8b9c';
const PUSH_CREDENTIALS = 'push-credentials-1a2b3c4d';
const URL_TOKEN = 'url-token-9d8c7b6a';
const NOTIFICATION_TOKEN = 'notification-token-4c5d6e7f';
const SECRETS = [API_KEY, BEARER, OPAQUE_BEARER, PUSH_TOKEN, PUSH_CREDENTIALS, URL_TOKEN, NOTIFICATION_TOKEN];

for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as BindingName[]) {
  describe(`logs over ${binding}`, () => {
    test('request lines, state changes, agent failures; no secret in any line', async (t) => {
      const { logger, lines, entries } = capture();
      const server = createA2AServer({
        agent: async (ctx, task) => {
          if (ctx.text === 'fail') {
            // An agent that puts a credential into its error: the stack is logged, scrubbed.
            throw new Error(`deployer refused Authorization: Bearer ${OPAQUE_BEARER} (x-api-key=${API_KEY})`);
          }
          await task.working();
          await task.complete('ok');
        },
        card: TEST_CARD,
        pushNotifications: true,
        grpc: { port: 0, host: '127.0.0.1' },
        logger,
        redactValues: [API_KEY],
        onError: () => undefined,
      });
      t.after(() => server.close());
      const { url } = await server.listen(0, '127.0.0.1');
      const client = await A2AClient.connect(url, {
        bindings: [binding],
        headers: {
          authorization: `Bearer ${BEARER}`,
          'x-api-key': API_KEY,
          'x-a2a-notification-token': NOTIFICATION_TOKEN,
        },
      });
      t.after(() => client.close());
      const push = {
        url: `https://hooks.example.test/a2a?token=${URL_TOKEN}`,
        token: PUSH_TOKEN,
        authentication: { scheme: 'Bearer', credentials: PUSH_CREDENTIALS },
      };

      const ok = await client.send({
        text: 'hello',
        metadata: { apiKey: API_KEY, note: `Bearer ${BEARER}` },
      });
      assert.equal(ok.kind, 'task');
      const taskId = ok.kind === 'task' ? ok.task.id : '';
      await client.send({ text: 'hello', pushNotificationConfig: { ...push } });
      await client.createTaskPushNotificationConfig({ ...push, taskId });
      const failed = await client.send({ text: 'fail' });
      await assert.rejects(client.getTask(`missing-${API_KEY}`));
      for await (const _event of client.stream({ text: 'hello' })) {
        // drain
      }

      const all = entries();
      const requests = all.filter((e) => e.msg === 'request');
      const sent = requests.find((e) => e.op === 'SendMessage' && e.taskId === taskId);
      assert.ok(sent, `a request line for the task: ${lines.join('')}`);
      assert.equal(sent.status, 'TASK_STATE_COMPLETED');
      assert.equal(sent.principal, 'anonymous');
      assert.equal(typeof sent.ms, 'number');
      assert.ok(typeof sent.contextId === 'string');
      assert.ok(requests.some((e) => e.op === 'CreateTaskPushNotificationConfig' && e.taskId === taskId));
      const streamed = requests.find((e) => e.op === 'SendStreamingMessage');
      assert.equal(streamed?.status, 'TASK_STATE_COMPLETED');
      assert.ok((streamed?.events as number) >= 2);
      const refused = all.find((e) => e.msg === 'request refused' && e.op === 'GetTask');
      assert.equal(refused?.code, 'TaskNotFound');

      const states = all.filter((e) => e.msg === 'task state' && e.taskId === taskId).map((e) => e.state);
      // The agent's first event, working(), creates the task in that state.
      assert.deepEqual(states, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);

      // The failure: stack in the log, only the message at the client.
      const failure = all.find((e) => e.msg === 'agent failed');
      const err = failure?.err as { stack?: string; message?: string } | undefined;
      assert.match(err?.stack ?? '', /deployer refused[\s\S]*\n\s+at /);
      assert.equal(failure?.taskId, failed.kind === 'task' ? failed.task.id : '?');
      assert.equal(failed.kind === 'task' ? failed.task.status.state : '', 'TASK_STATE_FAILED');
      assert.doesNotMatch(JSON.stringify(failed), /\n\s+at /, 'no stack at the client');

      const text = lines.join('');
      for (const secret of SECRETS) assert.ok(!text.includes(secret), `secret ${secret} leaked into the log`);
    });
  });
}

describe('push delivery logger', () => {
  test('logs outcomes with the URL cut to origin and path, errors scrubbed', () => {
    const { logger, lines, entries } = capture();
    const log = pushLogger(logger, new Set([PUSH_TOKEN]));
    log.log({
      taskId: 't1',
      url: `https://user:${PUSH_CREDENTIALS}@hooks.example.test/cb?token=${URL_TOKEN}#x`,
      outcome: 'retrying',
      attempt: 2,
      httpStatus: 503,
      error: new Error(`webhook said no to X-A2A-Notification-Token: ${PUSH_TOKEN}`),
      durationMs: 12.345,
    });
    log.log({ taskId: 't1', url: 'https://hooks.example.test/cb', outcome: 'delivered', attempt: 3 });
    const [retry, delivered] = entries();
    assert.equal(retry?.msg, 'push delivery');
    assert.equal(retry?.url, 'https://hooks.example.test/cb');
    assert.equal(retry?.level, 40);
    assert.equal(retry?.httpStatus, 503);
    assert.equal(delivered?.outcome, 'delivered');
    const text = lines.join('');
    for (const secret of [PUSH_TOKEN, PUSH_CREDENTIALS, URL_TOKEN]) assert.ok(!text.includes(secret), secret);
  });

  test('no logger: nothing is logged and nothing breaks', () => {
    pushLogger(undefined).log({ taskId: 't', url: 'https://x.test', outcome: 'failed', attempt: 1 });
  });
});
