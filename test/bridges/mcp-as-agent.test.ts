/**
 * An MCP server as an A2A agent: an McpServer (the MCP SDK's) behind `a2a serve --mcp` (the real
 * CLI spawning it over stdio) and `--mcp-url` (Streamable HTTP), called by a2a-kit's client and
 * by @a2a-js/sdk's; and `mcpExecutor` in process for a tool that never answers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { SendMessageRequest, TaskState as SdkTaskState, type Task as SdkTask } from '@a2a-js/sdk';
import { A2AClient, statusOf, type StreamEvent } from '../../src/client/client.js';
import { textOf } from '../../src/client/artifacts.js';
import { InvalidParamsError } from '../../src/errors/index.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import { mcpExecutor, serveMcpOverHttp, toolsCard } from '../../src/bridges/mcp/index.js';
import { isRunning, spawnCli, waitForLine } from '../support/cli.js';
import { buildToolsServer } from './fixtures/mcp-tools.js';
import { serveAgent } from './support.js';

const call = (tool: string, args: Record<string, unknown> = {}) => ({ data: { tool, arguments: args } });

/** Starts `a2a serve <args>`; returns its URL and how to stop it. */
async function served(args: string[]): Promise<{ url: string; stop(): void }> {
  const child = spawnCli(['serve', ...args, '--port', '0', '--store', 'memory', '--log-level', 'silent']);
  const stop = (): void => {
    if (isRunning(child)) child.kill('SIGTERM');
  };
  try {
    const [, url] = await waitForLine(child, /^a2a-kit: mcp agent at (http:\/\/127\.0\.0\.1:\d+) /m);
    return { url: url!, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

async function finalTask(client: A2AClient, input: Parameters<A2AClient['send']>[0]): Promise<Task> {
  const reply = await client.send(input);
  assert.equal(reply.kind, 'task');
  return (reply as { task: Task }).task;
}

describe('a2a serve --mcp "<command>" (stdio)', () => {
  let url: string;
  let stop: () => void;
  let client: Awaited<ReturnType<typeof A2AClient.connect>>;
  before(async () => {
    const command = `"${process.execPath}" --import tsx test/bridges/fixtures/mcp-tools.ts`;
    ({ url, stop } = await served(['--mcp', command]));
    client = await A2AClient.connect(url);
  });
  after(async () => {
    await client.close();
    stop();
  });

  test('one skill per tool, with its schema and an example message', () => {
    const skills = client.card.skills;
    assert.deepEqual(
      skills.map((s) => s.id),
      ['add', 'shout', 'progress', 'picture', 'boom', 'error_result', 'bad_image', 'hang', 'exit', 'stats'],
    );
    assert.equal(client.card.name, 'test-tools');
    const add = skills[0]!;
    assert.match(add.description, /Adds two numbers\./);
    assert.match(add.description, /"a":\{"type":"number"\}/);
    assert.deepEqual(JSON.parse(add.examples![0]!), { tool: 'add', arguments: { a: 1, b: 1 } });
  });

  test('a data part {tool, arguments} calls the tool; its result is the artifact', async () => {
    const task = await finalTask(client, call('add', { a: 2, b: 3 }));
    assert.equal(task.status.state, TaskState.COMPLETED);
    const artifact = task.artifacts![0]!;
    assert.equal(artifact.artifactId, 'result');
    assert.deepEqual(artifact.parts, [{ text: '5' }, { data: { sum: 5 } }]);
  });

  test('images and embedded files become file parts', async () => {
    const task = await finalTask(client, call('picture'));
    assert.deepEqual(task.artifacts![0]!.parts, [
      { raw: Buffer.from('png!').toString('base64'), mediaType: 'image/png' },
      { text: 'notes', mediaType: 'text/plain', filename: 'notes.txt' },
    ]);
  });

  test('MCP progress becomes WORKING status updates', async () => {
    const working: string[] = [];
    let last: StreamEvent | undefined;
    let canceled = false;
    for await (const e of client.stream(call('progress', { steps: 2, hold: true }))) {
      last = e;
      const status = statusOf(e);
      if (status?.state === TaskState.WORKING && status.message) working.push(textOf(status.message));
      // The tool holds after its steps: cancel once the last step shows.
      if (!canceled && working.includes('step 2') && e.kind === 'statusUpdate') {
        canceled = true;
        await client.cancelTask(e.statusUpdate.taskId);
      }
    }
    assert.equal(working[0], 'calling progress');
    assert.ok(working.includes('step 2'), String(working));
    assert.equal(statusOf(last!)?.state, TaskState.CANCELED);
  });

  test('a text message with several tools is refused with InvalidParams naming them', async () => {
    await assert.rejects(client.send({ text: 'hello' }), (e: unknown) => {
      assert.ok(e instanceof InvalidParamsError);
      assert.match(e.message, /serves 10 MCP tools \(add, shout, .*stats\)/);
      return true;
    });
    await assert.rejects(client.send(call('nope')), /unknown tool "nope"; this agent's tools: add, shout/);
  });

  test('a tool that throws, returns an error, or returns bad content: FAILED with the reason', async () => {
    const boom = await finalTask(client, call('boom'));
    assert.equal(boom.status.state, TaskState.FAILED);
    assert.match(textOf(boom.status.message), /boom returned an error: .*kaboom/);
    const err = await finalTask(client, call('error_result'));
    assert.equal(err.status.state, TaskState.FAILED);
    assert.match(textOf(err.status.message), /the widget is broken/);
    const bad = await finalTask(client, call('bad_image'));
    assert.equal(bad.status.state, TaskState.FAILED);
    assert.match(textOf(bad.status.message), /bad_image/);
    // Bad arguments are the tool's error result (the MCP SDK validates them).
    const args = await finalTask(client, call('add', { a: 'x' }));
    assert.equal(args.status.state, TaskState.FAILED);
    // ... and the bridge keeps serving.
    assert.equal((await finalTask(client, call('add', { a: 1, b: 1 }))).status.state, TaskState.COMPLETED);
  });

  test('CancelTask cancels the MCP request', async () => {
    const started = await client.send({ ...call('hang'), returnImmediately: true });
    const id = (started as { task: Task }).task.id;
    for (let i = 0; i < 200; i++) {
      if ((await client.getTask(id)).status.message) break; // WORKING "calling hang"
      await new Promise((r) => setTimeout(r, 10));
    }
    const canceled = await client.cancelTask(id);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    let stats = '';
    for (let i = 0; i < 200 && !stats.includes('"aborted":1'); i++) {
      stats = textOf((await finalTask(client, call('stats'))).artifacts![0]);
      if (!stats.includes('"aborted":1')) await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(stats, '{"aborted":1}');
  });

  test('a server that dies mid-call: that task FAILED, the next message starts it again', async () => {
    const died = await finalTask(client, call('exit'));
    assert.equal(died.status.state, TaskState.FAILED);
    assert.match(textOf(died.status.message), /the MCP tool exit failed: .*(closed|Connection)/i);
    const again = await finalTask(client, call('add', { a: 40, b: 2 }));
    assert.equal(again.status.state, TaskState.COMPLETED, textOf(again.status.message));
    assert.equal(textOf(again.artifacts![0]), '42');
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    test(`@a2a-js/sdk's client over ${binding} calls a tool`, async () => {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
          preferredTransports: [binding],
        }),
      );
      const sdk = await factory.createFromUrl(url);
      const result = await sdk.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { tool: 'shout', arguments: { text: 'hey' } } }],
          },
        }),
      );
      const task = result as SdkTask;
      assert.equal(task.status?.state, SdkTaskState.TASK_STATE_COMPLETED);
      const part = task.artifacts[0]!.parts[0]!;
      assert.equal(part.content?.$case === 'text' ? part.content.value : undefined, 'HEY');
    });
  }
});

describe('a2a serve --mcp-url <url> (Streamable HTTP), one tool', () => {
  test('a text message calls the only tool with the text as its string argument', async (t) => {
    const endpoint = await serveMcpOverHttp(() => buildToolsServer('shout').server);
    t.after(() => endpoint.close());
    const { url, stop } = await served(['--mcp-url', endpoint.url]);
    t.after(stop);
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const task = await finalTask(client, { text: 'quiet please' });
    assert.equal(textOf(task.artifacts![0]), 'QUIET PLEASE');
  });
});

describe('mcpExecutor in process', () => {
  test('a tool that never answers fails the task after timeoutMs; the agent keeps serving', async (t) => {
    const tools = buildToolsServer();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await tools.connect(b);
    const mcp = new McpClient({ name: 'bridge', version: '1' });
    await mcp.connect(a);
    t.after(() => mcp.close());
    const list = (await mcp.listTools()).tools;
    const agent = await serveAgent(mcpExecutor(mcp, { timeoutMs: 2000, tools: list }), toolsCard(mcp, list));
    t.after(() => agent.close());
    const client = await A2AClient.connect(agent.url);
    t.after(() => client.close());
    const hung = await finalTask(client, call('hang'));
    assert.equal(hung.status.state, TaskState.FAILED);
    assert.match(textOf(hung.status.message), /the MCP tool hang did not answer within 2000 ms/);
    assert.equal(textOf((await finalTask(client, call('shout', { text: 'ok' }))).artifacts![0]), 'OK');
  });
});
