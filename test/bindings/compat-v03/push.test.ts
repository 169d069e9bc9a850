/**
 * Push payloads by registered version (issue 14 item 4). The payload builder is real; delivery
 * (issue 12) sends every config the v1.0 StreamResponse for now, so the end-to-end check stays
 * todo until a config records the version it was registered with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pushPayloadFor } from '../../../src/bindings/compat-v03/push.js';
import type { StreamResponse, Task } from '../../../src/model/schema.js';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_CANCELED', timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'out', parts: [{ text: 'x' }] }],
};
const event: StreamResponse = { statusUpdate: { taskId: 't1', contextId: 'c1', status: task.status } };

test('a config registered at 0.3 gets the whole v0.3 Task as application/json', () => {
  const payload = pushPayloadFor('0.3', event, task);
  assert.equal(payload.contentType, 'application/json');
  assert.deepEqual(JSON.parse(payload.body), {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state: 'canceled', timestamp: '2026-01-01T00:00:00.000Z' },
    artifacts: [{ artifactId: 'out', parts: [{ kind: 'text', text: 'x' }] }],
  });
});

test('a config registered at 1.0 gets the StreamResponse as application/a2a+json', () => {
  const payload = pushPayloadFor('1.0', event, task);
  assert.equal(payload.contentType, 'application/a2a+json');
  assert.deepEqual(JSON.parse(payload.body), event);
});

test(
  'push delivery sends v0.3 payloads to configs created by v0.3 clients, v1.0 ones to the others',
  {
    todo: 'delivery does not record the registering version yet: store it with the config, then build the body with pushPayloadFor (src/core/push/memory-outbox.ts saveChange)',
  },
  () => {
    // When delivery lands: create a config over message/send (v0.3) and one over SendMessage
    // (v1.0) on the same task, run it to completion, and check each receiver's body and type.
  },
);
