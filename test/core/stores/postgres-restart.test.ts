/**
 * PostgreSQL going away mid-run, as a restart does: every connection of a running server
 * (its pool and its LISTEN connection) is terminated with pg_terminate_backend, again and
 * again while its agent writes events. The writes are retried with backoff, and the task
 * ends whole: every artifact chunk once, every message once, what the stream showed is what
 * GetTask returns. (The cluster is shared by the suite, so it is not really restarted here; the
 * fault suite restarts a cluster of its own: test/faults/postgres-disturbed.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState } from '../../../src/model/enums.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { createA2AServer } from '../../../src/server/http.js';
import { callAs, deferred, TEST_CARD, userMessage } from '../../support/handler.js';
import { dropSchema, freshSchema, postgresUrl, terminateBackends } from '../../support/postgres.js';
import { artifactTexts, StreamReader } from '../../support/stream-reader.js';

const CHUNKS = 12;
const gate = deferred<void>();

const agent: AgentExecutor = {
  async execute(_ctx, task) {
    await task.working('starting');
    for (let i = 0; i < 3; i++) await task.artifact({ artifactId: 'out', text: `c${i};` }, { append: i > 0 });
    await gate.promise;
    for (let i = 3; i < CHUNKS; i++) {
      await task.artifact({ artifactId: 'out', text: `c${i};` }, { append: true });
      if (i % 4 === 0) await task.working(`step ${i}`);
    }
    await task.complete();
  },
};

test(
  'connections dropped while the agent writes: retried with backoff, the task is never half-written',
  { timeout: 60_000 },
  async (t) => {
    const schema = freshSchema('restart');
    const url = new URL(postgresUrl());
    url.searchParams.set('schema', schema);
    url.searchParams.set('application_name', schema);
    const server = createA2AServer({
      agent,
      card: TEST_CARD,
      store: url.toString() as `postgres://${string}`,
    });
    t.after(async () => {
      gate.resolve();
      await server.close();
      await dropSchema(schema);
    });
    await server.listen(0, '127.0.0.1');
    const ctx = callAs('alice');
    const reader = new StreamReader(
      await server.handler.sendStreamingMessage({ message: userMessage('run') }, ctx),
    );
    await reader.until(() => artifactTexts(reader.view.artifacts).includes('out=c0;c1;c2;'));

    assert.ok((await terminateBackends(schema)) > 0, 'the server had connections to kill');
    gate.resolve();
    // Again while the agent's writes are under way.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await terminateBackends(schema);
    }
    await reader.done;

    const chunks = Array.from({ length: CHUNKS }, (_, i) => `c${i};`).join('');
    assert.equal(reader.view.state, TaskState.COMPLETED);
    assert.deepEqual(artifactTexts(reader.view.artifacts), [`out=${chunks}`]);
    const stored = await server.handler.getTask({ id: reader.events[0]!.task!.id }, ctx);
    assert.equal(stored.status.state, TaskState.COMPLETED);
    assert.deepEqual(artifactTexts(stored.artifacts), [`out=${chunks}`]);
    const ids = (stored.history ?? []).map((m) => m.messageId);
    assert.equal(new Set(ids).size, ids.length, 'no message was written twice');
    const texts = (stored.history ?? []).map((m) => m.parts[0]?.text);
    assert.deepEqual(texts, ['run', 'starting', 'step 4', 'step 8']);
  },
);
