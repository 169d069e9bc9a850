/**
 * The staged-events check shared by the SQLite and PostgreSQL store tests: an agent that sends
 * working, two artifact chunks and complete, streamed to a client that reads the task from a
 * second connection (as another process or replica would) as each event arrives: what the
 * event tells must already be stored by then.
 */
import assert from 'node:assert/strict';
import { TaskState } from '../../src/model/enums.js';
import type { StreamResponse } from '../../src/model/schema.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';
import type { StoredTask } from '../../src/core/stores/task-store.js';
import { callAs, userMessage } from './handler.js';

/** The agent: four events, each awaited. */
export const fourEvents: AgentExecutor['execute'] = async (_ctx, events) => {
  await events.working();
  await events.artifact({ artifactId: 'out', text: 'one' });
  await events.artifact({ artifactId: 'out', text: 'two' }, { append: true, lastChunk: true });
  await events.complete();
};

/**
 * Streams one message from alice through `handler` and checks each event against the task as
 * `read` finds it then (stored, with the chunk's parts, in the event's state); asserts the
 * events arrived, all of them, in order.
 */
export async function streamCheckedAgainstStore(
  handler: DefaultRequestHandler,
  read: (taskId: string) => Promise<StoredTask | undefined>,
): Promise<void> {
  const stream = await handler.sendStreamingMessage({ message: userMessage('go') }, callAs('alice'));
  const seen: string[] = [];
  let taskId = '';
  let chunks = 0;
  for await (const event of stream as AsyncIterable<StreamResponse>) {
    taskId ||= event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId ?? '';
    const stored = await read(taskId);
    // What the event tells is stored by the time it arrives (the store may be further).
    assert.ok(stored, 'the task is stored before its first event arrives');
    if (event.task) seen.push(`task ${event.task.status.state}`);
    if (event.artifactUpdate) {
      chunks++;
      const parts = stored.task.artifacts?.[0]?.parts.length ?? 0;
      assert.ok(parts >= chunks, `chunk ${chunks} arrived with ${parts} parts stored`);
      seen.push(`artifact ${event.artifactUpdate.artifact.parts[0]?.text}`);
    }
    if (event.statusUpdate) {
      assert.equal(stored.task.status.state, event.statusUpdate.status.state);
      seen.push(`status ${event.statusUpdate.status.state}`);
    }
  }
  // Every event arrives, in order.
  assert.deepEqual(seen, [
    `task ${TaskState.WORKING}`,
    'artifact one',
    'artifact two',
    `status ${TaskState.COMPLETED}`,
  ]);
}
