/**
 * No task holds the event loop: while one agent streams a long artifact, a card GET, a
 * JSON-RPC GetTask, a REST ListTasks and a gRPC GetTask sent during the stream are all answered
 * before the agent's last chunk (an ordering assertion: the agent notes the chunk at which
 * each answer had arrived).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer } from '../../src/server/index.js';
import { A2AClient } from '../../src/client/index.js';
import { TEST_CARD, deferred } from '../support/handler.js';

const CHUNKS = 50_000;

test('requests on every binding are answered while a long stream runs', async (t) => {
  const answered = new Map<string, number>();
  let chunk = -1;
  const started = deferred<string>();
  const server = createA2AServer({
    agent: async (ctx, task) => {
      await task.working();
      started.resolve(ctx.taskId);
      for (chunk = 0; chunk < CHUNKS; chunk++) {
        await task.artifact({ artifactId: 'out', text: `chunk-${chunk + 1}` }, { append: chunk > 0 });
      }
      await task.complete();
    },
    card: TEST_CARD,
    grpc: { port: 0, host: '127.0.0.1' },
    limits: { maxStreamQueueEvents: 1_000_000, maxStreamQueueBytes: 1024 ** 3 },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const grpc = await A2AClient.connect(url, { bindings: ['GRPC'] });
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

  const streaming = fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
    }),
  }).then((res) => res.text());
  const taskId = await started.promise;
  const note = (name: string) => (): void => void answered.set(name, chunk);
  const requests = [
    fetch(`${url}/.well-known/agent-card.json`)
      .then((res) => res.text())
      .then(note('card')),
    fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'GetTask',
        params: { id: taskId, historyLength: 0 },
      }),
    })
      .then((res) => res.text())
      .then(note('jsonrpc GetTask')),
    fetch(`${url}/a2a/rest/tasks?pageSize=1`, { headers })
      .then((res) => res.text())
      .then(note('rest ListTasks')),
    grpc.getTask(taskId, { historyLength: 0 }).then(note('grpc GetTask')),
  ];
  await Promise.all(requests);
  const stream = await streaming;
  assert.match(stream, /TASK_STATE_COMPLETED/);
  for (const name of ['card', 'jsonrpc GetTask', 'rest ListTasks', 'grpc GetTask']) {
    const at = answered.get(name);
    assert.ok(at !== undefined && at < CHUNKS, `${name} answered at chunk ${at} of ${CHUNKS}`);
  }
});
