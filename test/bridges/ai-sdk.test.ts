/**
 * The AI SDK bridges with the AI SDK's own mock language model (`ai/test`) and with an
 * OpenAI-compatible endpoint served on loopback: `aiSdkExecutor` served by createA2AServer and
 * called by a2a-kit's client (streamed text, tool calls, conversation, input-required, cancel,
 * malformed tool calls, model errors), and `a2aTool` over the bench agent and agents that fail
 * or never answer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { A2AClient, statusOf, type StreamEvent } from '../../src/client/client.js';
import { textOf } from '../../src/client/artifacts.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import {
  a2aTool,
  aiSdkExecutor,
  askUserTool,
  type A2AToolOutput,
  type AiSdkExecutorOptions,
} from '../../src/bridges/ai-sdk/index.js';
import { serveAgent, serveBench, troubleAgent } from './support.js';
import { startFakeOpenAI } from './openai-fake.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const finish = (unified: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({
  type: 'finish',
  usage,
  finishReason: { unified, raw: undefined },
});
const textTurn = (...pieces: string[]): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  ...pieces.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't', delta })),
  { type: 'text-end', id: 't' },
  finish('stop'),
];
const toolTurn = (toolName: string, input: string): LanguageModelV4StreamPart[] => [
  { type: 'tool-call', toolCallId: `c-${toolName}`, toolName, input },
  finish('tool-calls'),
];

/** A mock model answering each call with the next scripted turn. */
function scripted(turns: LanguageModelV4StreamPart[][]): MockLanguageModelV4 {
  let i = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream(turns[Math.min(i++, turns.length - 1)]!) }),
  });
}

// A zod schema, so the AI SDK validates the model's input against it.
const addTool = tool({
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

async function served(options: AiSdkExecutorOptions, t: { after(fn: () => unknown): void }) {
  const agent = await serveAgent(aiSdkExecutor(options), {
    name: 'llm',
    description: 'An AI SDK model.',
    version: '1.0.0',
    skills: [{ id: 'chat', name: 'Chat', description: 'Talks.', tags: ['llm'] }],
  });
  t.after(() => agent.close());
  const client = await A2AClient.connect(agent.url);
  t.after(() => client.close());
  return client;
}

async function streamAll(
  client: A2AClient,
  input: Parameters<A2AClient['stream']>[0],
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of client.stream(input)) events.push(e);
  return events;
}

describe('aiSdkExecutor with the AI SDK mock model', () => {
  test('streamed text becomes appended chunks of the artifact "response"', async (t) => {
    const client = await served(
      { model: scripted([textTurn('Hel', 'lo', ' world')]), system: 'be brief' },
      t,
    );
    const events = await streamAll(client, { text: 'hi' });
    const chunks = events.filter((e) => e.kind === 'artifactUpdate');
    assert.ok(chunks.length >= 2, `chunks: ${chunks.length}`);
    assert.equal(chunks[0]!.kind === 'artifactUpdate' && chunks[0]!.artifactUpdate.append, undefined);
    assert.ok(chunks.slice(1).every((c) => c.kind === 'artifactUpdate' && c.artifactUpdate.append === true));
    assert.equal(statusOf(events.at(-1)!)?.state, TaskState.COMPLETED);
    const task = await client.getTask(
      chunks[0]!.kind === 'artifactUpdate' ? chunks[0]!.artifactUpdate.taskId : '',
    );
    assert.equal(textOf(task.artifacts![0]), 'Hello world');
  });

  test('a generated file becomes an artifact of its own', async (t) => {
    const png = Buffer.from('png!').toString('base64');
    const model = scripted([
      [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } }, ...textTurn('here')],
    ]);
    const client = await served({ model }, t);
    const reply = (await client.send({ text: 'draw' })) as { task: Task };
    const file = reply.task.artifacts!.find((a) => a.name === 'file-1');
    assert.deepEqual(file?.parts, [{ raw: png, mediaType: 'image/png' }]);
    assert.equal(textOf(reply.task.artifacts!.find((a) => a.artifactId === 'response')), 'here');
  });

  test('tool calls become WORKING updates; the model gets the result and answers', async (t) => {
    const model = scripted([toolTurn('add', '{"a":2,"b":3}'), textTurn('five')]);
    const client = await served({ model, tools: { add: addTool } }, t);
    const events = await streamAll(client, { text: 'add 2 and 3' });
    const working = events.map(statusOf).filter((s) => s?.state === TaskState.WORKING && s.message);
    assert.equal(textOf(working[0]!.message), 'calling add');
    assert.deepEqual(working[0]!.message!.parts[1], { data: { tool: 'add', input: { a: 2, b: 3 } } });
    assert.equal(statusOf(events.at(-1)!)?.state, TaskState.COMPLETED);
    const prompt = JSON.stringify(model.doStreamCalls[1]!.prompt);
    assert.match(prompt, /"type":"tool-result".*"value":5/);
  });

  test('the conversation of a context is rebuilt: a later task sees the earlier turns', async (t) => {
    const model = scripted([textTurn('Hello Ada'), textTurn('You are Ada')]);
    const client = await served({ model }, t);
    const first = await client.send({ text: 'I am Ada' });
    const contextId = (first as { task: Task }).task.contextId;
    await client.send({ text: 'who am I?', contextId });
    const prompt = model.doStreamCalls[1]!.prompt;
    assert.deepEqual(
      prompt.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.match(JSON.stringify(prompt), /I am Ada.*Hello Ada.*who am I\?/);
  });

  test('a tool that needs the user becomes INPUT_REQUIRED; the answer continues the task', async (t) => {
    const model = scripted([toolTurn('askUser', '{"question":"Which city?"}'), textTurn('Sunny in Oslo')]);
    const client = await served({ model, tools: { askUser: askUserTool() } }, t);
    const asked = (await client.send({ text: 'weather?' })) as { task: Task };
    assert.equal(asked.task.status.state, TaskState.INPUT_REQUIRED);
    assert.equal(textOf(asked.task.status.message), 'Which city?');
    const done = (await client.send({
      text: 'Oslo',
      taskId: asked.task.id,
      contextId: asked.task.contextId,
    })) as { task: Task };
    assert.equal(done.task.status.state, TaskState.COMPLETED);
    assert.equal(textOf(done.task.artifacts![0]), 'Sunny in Oslo');
    assert.match(JSON.stringify(model.doStreamCalls[1]!.prompt), /weather\?.*Which city\?.*Oslo/);
  });

  test('CancelTask aborts the generation', async (t) => {
    let aborted = false;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'thinking' });
            abortSignal?.addEventListener('abort', () => {
              aborted = true;
              controller.error(abortSignal.reason);
            });
          },
        }),
      }),
    });
    const client = await served({ model }, t);
    const events = client.stream({ text: 'go' });
    let taskId: string | undefined;
    for await (const e of events) {
      if (e.kind === 'artifactUpdate') {
        taskId = e.artifactUpdate.taskId;
        break;
      }
    }
    assert.ok(taskId);
    assert.equal((await client.cancelTask(taskId)).status.state, TaskState.CANCELED);
    for (let i = 0; i < 200 && !aborted; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(aborted, true);
  });

  test('a malformed tool call (bad JSON, unknown tool, wrong input) fails the task with the reason', async (t) => {
    for (const [name, input, pattern] of [
      ['add', '{"a": 1,', /malformed call of tool add/],
      ['nope', '{}', /malformed call of tool nope/],
      ['add', '{"a":"x"}', /malformed call of tool add/],
    ] as const) {
      const client = await served(
        { model: scripted([toolTurn(name, input), textTurn('never')]), tools: { add: addTool } },
        t,
      );
      const reply = (await client.send({ text: 'add' })) as { task: Task };
      assert.equal(reply.task.status.state, TaskState.FAILED, name);
      assert.match(textOf(reply.task.status.message), pattern);
    }
  });

  test('a model that never finishes fails the task after timeoutMs; one that talks too long after maxAnswerChars', async (t) => {
    const endless = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason));
          },
        }),
      }),
    });
    const slow = await served({ model: endless, timeoutMs: 300 }, t);
    const hung = (await slow.send({ text: 'x' })) as { task: Task };
    assert.equal(hung.task.status.state, TaskState.FAILED);
    assert.match(textOf(hung.task.status.message), /did not finish within 300 ms/);
    const chatty = await served(
      { model: scripted([textTurn('aaaa', 'bbbb', 'cccc')]), maxAnswerChars: 6 },
      t,
    );
    const long = (await chatty.send({ text: 'x' })) as { task: Task };
    assert.equal(long.task.status.state, TaskState.FAILED);
    assert.match(textOf(long.task.status.message), /exceeded 6 characters/);
  });

  test('a model that fails fails the task with the reason; the agent keeps serving', async (t) => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        if (calls++ === 0) throw new Error('rate limited');
        return { stream: convertArrayToReadableStream(textTurn('fine')) };
      },
    });
    const client = await served({ model }, t);
    const failed = (await client.send({ text: 'x' })) as { task: Task };
    assert.equal(failed.task.status.state, TaskState.FAILED);
    assert.match(textOf(failed.task.status.message), /rate limited/);
    const ok = (await client.send({ text: 'y' })) as { task: Task };
    assert.equal(ok.task.status.state, TaskState.COMPLETED);
  });
});

describe('aiSdkExecutor with an OpenAI-compatible endpoint on loopback', () => {
  test('streams text and calls tools through @ai-sdk/openai-compatible', async (t) => {
    const fake = await startFakeOpenAI([
      { tool: 'add', arguments: '{"a":20,"b":22}' },
      { text: ['the answer', ' is 42'] },
    ]);
    t.after(() => fake.close());
    const provider = createOpenAICompatible({ name: 'local', baseURL: fake.baseURL });
    const client = await served(
      { model: provider.chatModel('tiny'), tools: { add: addTool }, system: 'You add.' },
      t,
    );
    const events = await streamAll(client, { text: 'what is 20 + 22?' });
    assert.equal(statusOf(events.at(-1)!)?.state, TaskState.COMPLETED);
    const taskId = events[0]!.kind === 'task' ? events[0]!.task.id : '';
    assert.equal(textOf((await client.getTask(taskId)).artifacts![0]), 'the answer is 42');
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0]!.model, 'tiny');
    assert.deepEqual(fake.requests[0]!.messages[0], { role: 'system', content: 'You add.' });
    assert.match(JSON.stringify(fake.requests[1]!.messages), /"role":"tool".*42/);
  });
});

describe('a2aTool: an A2A agent as an AI SDK tool', () => {
  test('a model delegates to the bench agent: answer, question with taskId, and the follow-up', async (t) => {
    const bench = await serveBench();
    t.after(() => bench.close());
    const benchTool = await a2aTool(bench.url);
    assert.match(String(benchTool.description), /Delegate to the A2A agent "bench"/);
    const model = scripted([
      toolTurn('bench', '{"message":"stream:2"}'),
      toolTurn('bench', '{"message":"input:name?"}'),
      textTurn('ok'),
    ]);
    const result = streamText({ model, prompt: 'go', tools: { bench: benchTool }, stopWhen: stepCountIs(4) });
    const outputs = (await result.steps).flatMap((s) => s.toolResults.map((r) => r.output as A2AToolOutput));
    assert.deepEqual(
      { state: outputs[0]!.state, text: outputs[0]!.text },
      { state: 'COMPLETED', text: 'chunk-1chunk-2' },
    );
    assert.equal(outputs[1]!.state, 'INPUT_REQUIRED');
    assert.equal(outputs[1]!.text, 'name?');
    const follow = await benchTool.execute!(
      { message: 'Ada', taskId: outputs[1]!.taskId!, contextId: outputs[1]!.contextId! },
      { toolCallId: 'x', messages: [], context: {} } as Parameters<NonNullable<typeof benchTool.execute>>[1],
    );
    assert.deepEqual(
      { state: (follow as { state: string }).state, text: (follow as { text: string }).text },
      { state: 'COMPLETED', text: 'Ada' },
    );
  });

  test('an agent that fails, rejects or never answers is a tool error the model sees', async (t) => {
    const agent = await serveAgent(troubleAgent.executor, troubleAgent.card);
    t.after(() => agent.close());
    const client = await A2AClient.connect(agent.url);
    t.after(() => client.close());
    // Only the call that hangs goes through the tool with a short wait.
    const trouble = await a2aTool(client);
    const impatient = await a2aTool(client, { timeoutMs: 300 });
    const model = scripted([
      toolTurn('trouble', '{"message":"fail"}'),
      toolTurn('trouble', '{"message":"reject"}'),
      toolTurn('impatient', '{"message":"hang"}'),
      textTurn('gave up'),
    ]);
    const result = streamText({
      model,
      prompt: 'go',
      tools: { trouble, impatient },
      stopWhen: stepCountIs(5),
    });
    const errors = (await result.steps).flatMap((s) =>
      s.content.filter((c) => c.type === 'tool-error').map((c) => String((c as { error: unknown }).error)),
    );
    assert.equal(errors.length, 3, JSON.stringify(errors));
    assert.match(errors[0]!, /ended FAILED: the disk is full/);
    assert.match(errors[1]!, /ended REJECTED: I do not do that/);
    const m = /did not answer within 300 ms; task (\S+) was canceled/.exec(errors[2]!);
    assert.ok(m, errors[2]);
    assert.equal((await client.getTask(m[1]!)).status.state, TaskState.CANCELED);
    assert.equal(await result.text, 'gave up');
  });
});
