/**
 * The ListTasks cursor guarantee, over REST on a real socket: walking every page while tasks
 * are inserted and updated, each task that existed when the walk began and was not updated
 * during it is seen exactly once, and no task is seen twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';

const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

test('a ListTasks walk under concurrent inserts and updates sees every untouched task exactly once', async (t) => {
  const server = createA2AServer({
    agent: async (ctx, task) => {
      if (ctx.task) await task.complete('answered');
      else await task.requireInput('which one?');
    },
    card: TEST_CARD,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const send = async (taskId?: string): Promise<string> => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'x' }],
          ...(taskId ? { taskId } : {}),
        },
      }),
    });
    const body = (await res.json()) as { task: { id: string } };
    return body.task.id;
  };

  const initial: string[] = [];
  for (let i = 0; i < 60; i++) initial.push(await send());
  const updated = new Set<string>();
  const seen = new Map<string, number>();
  let token = '';
  let pages = 0;
  let unseen = initial.slice();
  do {
    const res = await fetch(
      `${url}/a2a/rest/tasks?pageSize=7${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
      {
        headers,
      },
    );
    assert.equal(res.status, 200);
    const page = (await res.json()) as { tasks?: { id: string }[]; nextPageToken?: string };
    for (const task of page.tasks ?? []) seen.set(task.id, (seen.get(task.id) ?? 0) + 1);
    token = page.nextPageToken ?? '';
    pages++;
    // Between pages: two new tasks, one update of a task not seen yet, one of a task seen already.
    await send();
    await send();
    unseen = unseen.filter((id) => !seen.has(id) && !updated.has(id));
    const ahead = unseen[pages % Math.max(unseen.length, 1)];
    if (ahead) {
      updated.add(ahead);
      await send(ahead);
    }
    const behind = [...seen.keys()].find((id) => !updated.has(id) && initial.includes(id));
    if (behind) {
      updated.add(behind);
      await send(behind);
    }
  } while (token && pages < 100);
  assert.ok(pages > 5 && pages < 100, `${pages} pages`);
  for (const [id, count] of seen) assert.equal(count, 1, `task ${id} seen ${count} times`);
  for (const id of initial) {
    if (!updated.has(id)) assert.equal(seen.get(id), 1, `untouched task ${id} seen once`);
  }
});
