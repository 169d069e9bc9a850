/**
 * A stream whose client stops reading is bounded: once its unread events pass the limit it
 * ends with one error event, the agent finishing at full speed meanwhile (JSON-RPC and REST
 * SSE on real sockets).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer } from '../../../src/server/index.js';
import { TEST_CARD, deferred } from '../../support/handler.js';

const CHUNKS = 400;
const CHUNK = 'c'.repeat(64 * 1024);

for (const binding of ['jsonrpc', 'rest'] as const) {
  test(`${binding}: a subscriber that stops reading is closed with an error; the agent is not slowed`, async (t) => {
    const agentDone = deferred();
    const server = createA2AServer({
      agent: async (_ctx, task) => {
        await task.working();
        for (let i = 0; i < CHUNKS; i++) {
          await task.artifact({ artifactId: 'out', text: CHUNK }, { append: i > 0 });
        }
        await task.complete();
        agentDone.resolve();
      },
      card: TEST_CARD,
      limits: { maxStreamQueueBytes: 1024 * 1024 },
    });
    const { url } = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] };
    const res =
      binding === 'jsonrpc'
        ? await fetch(`${url}/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'SendStreamingMessage',
              params: { message },
            }),
          })
        : await fetch(`${url}/a2a/rest/message:stream`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: JSON.stringify({ message }),
          });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // The client reads nothing more until the agent is done: 25 MiB of events, far more than
    // the socket buffers and the 1 MiB the stream may hold.
    await agentDone.promise;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const frames = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)) as Record<string, unknown>);
    const last = frames[frames.length - 1]!;
    const error = (binding === 'jsonrpc' ? last.error : (last as { error?: unknown }).error) as
      { message: string } | undefined;
    assert.ok(error, `the last frame is an error: ${JSON.stringify(last).slice(0, 200)}`);
    assert.match(error.message, /fell behind.*resubscribe \(SubscribeToTask\) and reconcile with GetTask/);
    assert.ok(frames.length < CHUNKS, `${frames.length} frames`);
    // The task itself completed.
    const taskId = (
      (binding === 'jsonrpc' ? (frames[0]!.result as Record<string, unknown>) : frames[0]!).task as {
        id: string;
      }
    ).id;
    const got = await fetch(`${url}/a2a/rest/tasks/${taskId}?historyLength=0`, {
      headers: { 'a2a-version': '1.0' },
    });
    const task = (await got.json()) as { status: { state: string }; artifacts: { parts: unknown[] }[] };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0]!.parts.length, CHUNKS);
  });
}
