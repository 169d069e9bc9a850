/**
 * An A2A agent as an MCP server: the MCP SDK's own Client against `a2a mcp` (the real CLI over
 * stdio and over Streamable HTTP) and against `createMcpServerFromAgent` in process, over the
 * bench agent (tasks, streaming, input-required, cancel) and agents that fail, reject or hang.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { A2AClient } from '../../src/client/client.js';
import { createA2AServer } from '../../src/server/http.js';
import { benchCard, benchExecutor, DEMO_TOKEN, demoTokenAuthenticate } from '../../src/agents/index.js';
import { createMcpServerFromAgent } from '../../src/bridges/mcp/index.js';
import { TaskState } from '../../src/model/enums.js';
import { isRunning, spawnCli, waitForLine } from '../support/cli.js';
import { serveAgent, serveBench, troubleAgent, type LocalAgent } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const texts = (r: CallToolResult): string[] =>
  (r.content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text!);

/** The behaviours every transport must show, on a connected MCP client over the bench agent. */
async function exerciseBench(mcp: Client, bench: LocalAgent): Promise<void> {
  const { tools } = await mcp.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['echo', 'task', 'stream', 'slow', 'input'],
  );
  const stream = tools.find((t) => t.name === 'stream')!;
  assert.match(stream.description!, /stream:<n> streams n chunks/);
  assert.match(stream.description!, /"stream:100"/);
  assert.deepEqual(stream.inputSchema.required, ['message']);

  const echo = (await mcp.callTool({ name: 'echo', arguments: { message: 'echo:hi' } })) as CallToolResult;
  assert.deepEqual(texts(echo), ['hi']);

  const streamed = (await mcp.callTool({ name: 'stream', arguments: { message: 'stream:3' } }, undefined, {
    onprogress: () => undefined,
  })) as CallToolResult;
  assert.equal(streamed.isError, undefined);
  assert.deepEqual(texts(streamed), ['chunk-1', 'chunk-2', 'chunk-3']);
  assert.equal((streamed.structuredContent as { state: string }).state, 'COMPLETED');

  const asked = (await mcp.callTool({
    name: 'input',
    arguments: { message: 'input:your name?' },
  })) as CallToolResult;
  const ids = asked.structuredContent as { taskId: string; contextId: string; state: string };
  assert.equal(ids.state, 'INPUT_REQUIRED');
  assert.match(texts(asked)[0]!, /needs input: your name\?/);
  assert.match(texts(asked)[0]!, new RegExp(`taskId "${ids.taskId}"`));
  const answered = (await mcp.callTool({
    name: 'input',
    arguments: { message: 'Ada', taskId: ids.taskId, contextId: ids.contextId },
  })) as CallToolResult;
  assert.deepEqual(texts(answered), ['Ada']);

  // An agent's refusal is an isError result with its reason; bad arguments too.
  const refused = (await mcp.callTool({
    name: 'stream',
    arguments: { message: 'stream:lots' },
  })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.match(texts(refused)[0]!, /rejected: stream:<n> needs a whole number/);
  const bad = (await mcp.callTool({ name: 'task', arguments: { text: 'no message' } })) as CallToolResult;
  assert.equal(bad.isError, true);

  // The card and the task as resources.
  const { resources } = await mcp.listResources();
  assert.ok(resources.some((r) => r.uri === 'a2a://card'));
  assert.ok(resources.some((r) => r.uri === `a2a://tasks/${ids.taskId}`));
  const card = await mcp.readResource({ uri: 'a2a://card' });
  assert.equal(JSON.parse((card.contents[0] as { text: string }).text).name, 'bench');
  const task = await mcp.readResource({ uri: `a2a://tasks/${ids.taskId}` });
  assert.equal(JSON.parse((task.contents[0] as { text: string }).text).status.state, TaskState.COMPLETED);

  // A canceled MCP request cancels the A2A task.
  const controller = new AbortController();
  let slowTask: string | undefined;
  const a2a = await A2AClient.connect(bench.url);
  // The task never ends by itself, so its progress notifications reach the host (the SDK's
  // Client drops those that arrive together with a result: it handles notifications a turn late).
  const progress: string[] = [];
  const call = mcp.callTool({ name: 'slow', arguments: { message: 'slow:600000' } }, undefined, {
    signal: controller.signal,
    onprogress: (p) => {
      progress.push(p.message ?? '');
      controller.abort();
    },
  });
  await assert.rejects(call);
  assert.match(progress[0]!, /^task \S+: WORKING$/);
  for (let i = 0; i < 200 && !slowTask; i++) {
    const { tasks } = await a2a.listTasks({});
    slowTask = tasks.find((t) => t.status.state === TaskState.CANCELED)?.id;
    if (!slowTask) await new Promise((r) => setTimeout(r, 25));
  }
  assert.ok(slowTask, 'the slow task was canceled');
  await a2a.close();
}

/** A POST with exactly these headers (fetch would not send another Host). */
function rawPost(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a2a mcp over the bench agent', () => {
  let bench: LocalAgent;
  before(async () => {
    bench = await serveBench();
  });
  after(() => bench.close());

  test('stdio: the MCP SDK Client spawns `a2a mcp` and uses every path', async (t) => {
    const mcp = new Client({ name: 'test-host', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', bench.url],
      cwd: ROOT,
      stderr: 'pipe',
    });
    t.after(() => mcp.close());
    await mcp.connect(transport);
    assert.equal(mcp.getServerVersion()?.name, 'bench');
    await exerciseBench(mcp, bench);
  });

  test('Streamable HTTP: `a2a mcp --http --port 0`', async (t) => {
    const child = spawnCli(['mcp', bench.url, '--http', '--port', '0']);
    t.after(() => {
      if (isRunning(child)) child.kill('SIGKILL');
    });
    const [, url] = await waitForLine(child, /at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(Streamable HTTP\)/);
    const mcp = new Client({ name: 'test-host', version: '1.0.0' });
    t.after(() => mcp.close());
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url!)));
    await exerciseBench(mcp, bench);
    // On loopback, a request naming another host, or from a web page elsewhere, is refused
    // (DNS rebinding); the endpoint answers 403 before any MCP is read.
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const port = Number(new URL(url!).port);
    assert.equal((await rawPost(port, { host: `evil.example:${port}` }, init)).status, 403);
    const fromPage = await rawPost(port, { host: `127.0.0.1:${port}`, origin: 'https://evil.example' }, init);
    assert.equal(fromPage.status, 403);
    assert.match(
      (JSON.parse(fromPage.body) as { error: { message: string } }).error.message,
      /Origin "https:\/\/evil.example" is not allowed/,
    );
    // A second session at the same time is served too.
    const other = new Client({ name: 'second-host', version: '1.0.0' });
    t.after(() => other.close());
    await other.connect(new StreamableHTTPClientTransport(new URL(url!)));
    assert.deepEqual(
      texts((await other.callTool({ name: 'task', arguments: { message: 'task:two' } })) as CallToolResult),
      ['two'],
    );
  });
});

describe("a2a mcp with the client commands' auth flags", () => {
  test('--token reaches an agent that requires a bearer token; without it calls are isError', async (t) => {
    const server = createA2AServer({
      agent: benchExecutor,
      card: benchCard,
      store: 'memory',
      logger: false,
      authenticate: demoTokenAuthenticate,
    });
    const url = (await server.listen(0, '127.0.0.1')).url.replace(/\/+$/, '');
    t.after(() => server.close());
    const spawnMcp = async (extra: string[]) => {
      const mcp = new Client({ name: 'test-host', version: '1.0.0' });
      t.after(() => mcp.close());
      await mcp.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', url, ...extra],
          cwd: ROOT,
          stderr: 'pipe',
        }),
      );
      return mcp;
    };
    const [withToken, without] = await Promise.all([spawnMcp(['--token', DEMO_TOKEN]), spawnMcp([])]);
    const ok = (await withToken.callTool({
      name: 'task',
      arguments: { message: 'task:secret' },
    })) as CallToolResult;
    assert.deepEqual(texts(ok), ['secret']);
    const refused = (await without.callTool({
      name: 'task',
      arguments: { message: 'task:secret' },
    })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(texts(refused)[0]!, /refused the call: .*(Unauthenticated|401|credentials)/i);
  });
});

/** An MCP client linked in memory to a bridge over `a2a` (with `timeoutMs`, else the default). */
async function linkedHost(a2a: A2AClient, timeoutMs?: number): Promise<Client> {
  const bridge = createMcpServerFromAgent(a2a, timeoutMs !== undefined ? { timeoutMs } : {});
  const [hostSide, serverSide] = InMemoryTransport.createLinkedPair();
  await bridge.connect(serverSide);
  const host = new Client({ name: 'test-host', version: '1.0.0' });
  await host.connect(hostSide);
  return host;
}

describe('createMcpServerFromAgent over an agent that does not stream', () => {
  test('calls are unary SendMessage: answers, questions and a bounded wait', async (t) => {
    const server = createA2AServer({
      agent: benchExecutor,
      card: benchCard,
      store: 'memory',
      logger: false,
      streaming: false,
    });
    const url = (await server.listen(0, '127.0.0.1')).url.replace(/\/+$/, '');
    t.after(() => server.close());
    const a2a = await A2AClient.connect(url);
    t.after(() => a2a.close());
    assert.equal(a2a.card.capabilities.streaming, false);
    const mcp = await linkedHost(a2a);
    t.after(() => mcp.close());
    const task = (await mcp.callTool({
      name: 'task',
      arguments: { message: 'task:unary' },
    })) as CallToolResult;
    assert.deepEqual(texts(task), ['unary']);
    const asked = (await mcp.callTool({
      name: 'input',
      arguments: { message: 'input:why?' },
    })) as CallToolResult;
    assert.equal((asked.structuredContent as { state: string }).state, 'INPUT_REQUIRED');
    const impatient = await linkedHost(a2a, 300);
    t.after(() => impatient.close());
    const slow = (await impatient.callTool({
      name: 'slow',
      arguments: { message: 'slow:5000' },
    })) as CallToolResult;
    assert.equal(slow.isError, true);
    assert.match(texts(slow)[0]!, /did not answer within 300 ms/);
  });
});

describe('createMcpServerFromAgent: bad input and agents that go wrong', () => {
  let agent: LocalAgent;
  let a2a: A2AClient;
  let mcp: Client;
  /** A second bridge with a short wait, for the call that never ends. */
  let impatient: Client;
  before(async () => {
    agent = await serveAgent(troubleAgent.executor, troubleAgent.card);
    a2a = await A2AClient.connect(agent.url);
    mcp = await linkedHost(a2a);
    impatient = await linkedHost(a2a, 300);
  });
  after(async () => {
    await mcp.close();
    await impatient.close();
    await a2a.close();
    await agent.close();
  });

  const call = async (args: Record<string, unknown>) =>
    (await mcp.callTool({ name: 'trouble_maker_', arguments: args })) as CallToolResult;

  test('the skill id becomes a valid tool name', async () => {
    const { tools } = await mcp.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['trouble_maker_'],
    );
  });

  test('a failing agent is an isError result with its reason', async () => {
    const r = await call({ message: 'fail' });
    assert.equal(r.isError, true);
    assert.match(texts(r)[0]!, /failed: the disk is full/);
  });

  test('a rejecting agent is an isError result with its reason', async () => {
    const r = await call({ message: 'reject' });
    assert.equal(r.isError, true);
    assert.match(texts(r)[0]!, /rejected: I do not do that/);
  });

  test('an agent that never answers: an isError result after timeoutMs, and its task canceled', async () => {
    const r = (await impatient.callTool({
      name: 'trouble_maker_',
      arguments: { message: 'hang' },
    })) as CallToolResult;
    assert.equal(r.isError, true);
    const m = /did not answer within 300 ms; task (\S+) was canceled/.exec(texts(r)[0]!);
    assert.ok(m, texts(r)[0]);
    assert.equal((await a2a.getTask(m[1]!)).status.state, TaskState.CANCELED);
  });

  test('files and data become MCP image and text content', async () => {
    const r = await call({ message: 'image' });
    assert.deepEqual(r.content, [
      { type: 'image', data: Buffer.from('png!').toString('base64'), mimeType: 'image/png' },
      { type: 'text', text: '{"ok":true}' },
    ]);
  });

  test('bad arguments are an isError result; an unknown tool an MCP error; the bridge keeps serving', async () => {
    const bad = await call({ data: 'x' });
    assert.equal(bad.isError, true);
    assert.match(texts(bad)[0]!, /"message" \(a string\) is required/);
    await assert.rejects(
      mcp.callTool({ name: 'nope', arguments: {} }),
      /unknown tool "nope" \(tools: trouble_maker_\)/,
    );
    await assert.rejects(mcp.readResource({ uri: 'a2a://tasks/no-such-task' }), /task no-such-task/);
    assert.equal((await call({ message: 'reject' })).isError, true);
  });

  test('an agent that is gone is an isError result', async () => {
    const gone = await serveAgent(troubleAgent.executor, troubleAgent.card);
    const client = await A2AClient.connect(gone.url);
    await gone.close();
    const server = createMcpServerFromAgent(client);
    const [hostSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const host = new Client({ name: 'h', version: '1' });
    await host.connect(hostSide);
    const r = (await host.callTool({
      name: 'trouble_maker_',
      arguments: { message: 'x' },
    })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(texts(r)[0]!, /could not be reached/);
    await host.close();
    await client.close();
  });
});
