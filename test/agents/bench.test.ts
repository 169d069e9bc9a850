/** The built-in agents, run through the real DefaultRequestHandler (no HTTP). */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  benchCard,
  benchExecutor,
  echoCard,
  echoExecutor,
  builtInAgents,
  type BuiltInCard,
} from '../../src/agents/index.js';
import { Role, TaskState } from '../../src/model/enums.js';
import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '../../src/model/schema.js';
import { createCallContext } from '../../src/core/context.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';

function fullCard(card: BuiltInCard): AgentCard {
  return {
    ...card,
    supportedInterfaces: [
      { url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: card.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: card.defaultOutputModes ?? ['text/plain'],
  };
}

const handlers: DefaultRequestHandler[] = [];
after(async () => {
  await Promise.all(handlers.map((h) => h.close()));
});

function handlerFor(executor: AgentExecutor, card: BuiltInCard): DefaultRequestHandler {
  const handler = new DefaultRequestHandler({ executor, card: () => fullCard(card) });
  handlers.push(handler);
  return handler;
}

function send(
  text: string,
  extra: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  const message: Message = {
    messageId: crypto.randomUUID(),
    role: Role.USER,
    parts: [{ text }],
    ...(extra.taskId ? { taskId: extra.taskId } : {}),
    ...(extra.contextId ? { contextId: extra.contextId } : {}),
  };
  return { message, ...(extra.returnImmediately ? { configuration: { returnImmediately: true } } : {}) };
}

function partText(message: Message | undefined): string | undefined {
  const part = message?.parts[0];
  return part && 'text' in part ? part.text : undefined;
}

function artifactText(task: Task, artifactId = 'out'): string {
  const artifact = task.artifacts?.find((a) => a.artifactId === artifactId);
  return (artifact?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

async function taskOf(promise: Promise<{ task?: Task; message?: Message }>): Promise<Task> {
  const response = await promise;
  assert.ok(response.task, `expected a Task, got ${JSON.stringify(response)}`);
  return response.task;
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) {
    events.push(event);
    assert.ok(events.length < 10_000, 'stream did not end');
  }
  return events;
}

const ctx = createCallContext();

describe('built-in agent registry', () => {
  test('lists echo and bench with cards that have skills', () => {
    assert.deepEqual(Object.keys(builtInAgents).sort(), ['bench', 'echo']);
    for (const agent of Object.values(builtInAgents)) {
      assert.ok(agent.card.skills.length > 0);
      assert.ok(agent.card.skills.every((s) => s.tags.length > 0));
    }
  });
});

describe('echo agent', () => {
  const handler = handlerFor(echoExecutor, echoCard);

  test('replies with a direct Message carrying the same text', async () => {
    const response = await handler.sendMessage(send('hello there'), ctx);
    assert.ok(response.message, 'expected a Message');
    assert.equal(response.message.role, Role.AGENT);
    assert.equal(partText(response.message), 'hello there');
  });

  test('echoes data parts too', async () => {
    const request = send('x');
    request.message.parts = [{ data: { a: 1 } }];
    const response = await handler.sendMessage(request, ctx);
    assert.deepEqual(response.message?.parts, [{ data: { a: 1 } }]);
  });
});

describe('bench agent', () => {
  const handler = handlerFor(benchExecutor, benchCard);

  test('echo:<s> answers with a direct Message <s>', async () => {
    const response = await handler.sendMessage(send('echo:ping'), ctx);
    assert.ok(response.message);
    assert.equal(partText(response.message), 'ping');
  });

  test('task:<s> completes a task with artifact out = <s>', async () => {
    const task = await taskOf(handler.sendMessage(send('task:payload'), ctx));
    assert.equal(task.status.state, TaskState.COMPLETED);
    assert.equal(task.artifacts?.length, 1);
    assert.equal(task.artifacts?.[0]?.artifactId, 'out');
    assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'payload' }]);
  });

  test('stream:<n> streams WORKING, n chunks of out, COMPLETED', async () => {
    const events = await collect(await handler.sendStreamingMessage(send('stream:4'), ctx));
    assert.ok(events[0]?.task, 'first event is the task');
    // The first event is the task as it is when the stream starts (WORKING may be folded in).
    const states = events.flatMap((e) =>
      e.task ? [e.task.status.state] : e.statusUpdate ? [e.statusUpdate.status.state] : [],
    );
    assert.ok(states[0] === TaskState.SUBMITTED || states[0] === TaskState.WORKING);
    assert.ok(states.includes(TaskState.WORKING));
    assert.equal(states.at(-1), TaskState.COMPLETED);
    const chunks = events.flatMap((e) => (e.artifactUpdate ? [e.artifactUpdate] : []));
    assert.equal(chunks.length, 4);
    chunks.forEach((chunk, i) => {
      assert.equal(chunk.artifact.artifactId, 'out');
      // The external benchmark harness checks these texts: 1-based, with a hyphen.
      assert.deepEqual(chunk.artifact.parts, [{ text: `chunk-${i + 1}` }]);
      assert.equal(chunk.append ?? false, i > 0);
      assert.equal(chunk.lastChunk ?? false, i === 3);
    });
    assert.ok(events.at(-1)?.statusUpdate, 'the stream ends with the COMPLETED status');
  });

  test('stream:<n> with a bad count is rejected, not crashed', async () => {
    const task = await taskOf(handler.sendMessage(send('stream:lots'), ctx));
    assert.equal(task.status.state, TaskState.REJECTED);
  });

  test('slow:<ms> completes with "slept <ms>"', async () => {
    const task = await taskOf(handler.sendMessage(send('slow:5'), ctx));
    assert.equal(task.status.state, TaskState.COMPLETED);
    assert.equal(artifactText(task), 'slept 5');
  });

  test('slow:<ms> is canceled at once by CancelTask', async () => {
    const started = await taskOf(handler.sendMessage(send('slow:600000', { returnImmediately: true }), ctx));
    const canceled = await handler.cancelTask({ id: started.id }, ctx);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    const fetched = await handler.getTask({ id: started.id }, ctx);
    assert.equal(fetched.status.state, TaskState.CANCELED);
    assert.equal(artifactText(fetched), '');
  });

  test('input:<q> asks <q>; the next message completes the task with its text', async () => {
    const asked = await taskOf(handler.sendMessage(send('input:your name?'), ctx));
    assert.equal(asked.status.state, TaskState.INPUT_REQUIRED);
    assert.equal(partText(asked.status.message), 'your name?');
    const answered = await taskOf(
      handler.sendMessage(send('Grace', { taskId: asked.id, contextId: asked.contextId ?? '' }), ctx),
    );
    assert.equal(answered.id, asked.id);
    assert.equal(answered.status.state, TaskState.COMPLETED);
    assert.equal(artifactText(answered), 'Grace');
  });

  test('text without a command is echoed', async () => {
    const response = await handler.sendMessage(send('just words'), ctx);
    assert.equal(partText(response.message), 'just words');
  });
});
