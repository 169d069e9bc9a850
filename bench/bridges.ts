/**
 * Added latency per call of each bridge, p50/p99, on loopback (`node --import tsx bench/bridges.ts`).
 * Each bridge is timed beside the same call without it:
 * - A2A agent -> MCP: MCP Client callTool through createMcpServerFromAgent (Streamable HTTP)
 *   vs a2a-kit's client calling the bench agent directly (`task:x`);
 * - MCP server -> A2A: a2a-kit's client calling mcpExecutor (tool `shout`) vs the MCP Client
 *   calling the same McpServer directly (both over Streamable HTTP);
 * - AI SDK -> A2A: a2a-kit's client calling aiSdkExecutor (a mock model answering one text
 *   delta) vs streamText on the same mock model in process.
 * Calls run one at a time after a warm-up; N is `BRIDGE_BENCH_N` (default 300).
 */
import { performance } from 'node:perf_hooks';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { streamText } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { A2AClient } from '../src/client/client.js';
import {
  createMcpServerFromAgent,
  mcpExecutor,
  serveMcpOverHttp,
  toolsCard,
} from '../src/bridges/mcp/index.js';
import { aiSdkExecutor } from '../src/bridges/ai-sdk/index.js';
import { serveAgent, serveBench } from '../test/bridges/support.js';
import { buildToolsServer } from '../test/bridges/fixtures/mcp-tools.js';

const N = Number(process.env.BRIDGE_BENCH_N ?? 300);
const WARMUP = 30;

async function timeCalls(label: string, call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  const r = { p50: at(0.5), p99: at(0.99) };
  console.log(`${label.padEnd(44)} p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms`);
  return r;
}

function added(
  label: string,
  bridge: { p50: number; p99: number },
  base: { p50: number; p99: number },
): void {
  console.log(
    `  => ${label}: +${(bridge.p50 - base.p50).toFixed(3)} ms p50, +${(bridge.p99 - base.p99).toFixed(3)} ms p99\n`,
  );
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const mockModel = () =>
  new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'hello' },
        { type: 'text-end', id: 't' },
        { type: 'finish', usage, finishReason: { unified: 'stop', raw: undefined } },
      ]),
    }),
  });

async function main(): Promise<void> {
  // A2A agent -> MCP
  const bench = await serveBench();
  const a2a = await A2AClient.connect(bench.url);
  const direct = await timeCalls('A2A client -> bench agent (task:x)', () => a2a.send({ text: 'task:x' }));
  const streamed = await timeCalls('A2A client -> bench agent, streamed', async () => {
    for await (const _event of a2a.stream({ text: 'task:x' })) void _event;
  });
  const endpoint = await serveMcpOverHttp(() => createMcpServerFromAgent(a2a));
  const host = new McpClient({ name: 'bench', version: '1' });
  await host.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
  const viaMcp = await timeCalls('MCP client -> a2a mcp bridge -> bench agent', () =>
    host.callTool({ name: 'task', arguments: { message: 'task:x' } }),
  );
  added('A2A agent as MCP server', viaMcp, direct);
  added('A2A agent as MCP server, over the streamed call it makes', viaMcp, streamed);

  // MCP server -> A2A
  const tools = await serveMcpOverHttp(() => buildToolsServer().server);
  const mcp = new McpClient({ name: 'bench', version: '1' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(tools.url)));
  const list = (await mcp.listTools()).tools;
  const directTool = await timeCalls('MCP client -> McpServer (shout)', () =>
    mcp.callTool({ name: 'shout', arguments: { text: 'x' } }),
  );
  const bridged = await serveAgent(mcpExecutor(mcp, { tools: list }), toolsCard(mcp, list));
  const a2aToMcp = await A2AClient.connect(bridged.url);
  const viaA2A = await timeCalls('A2A client -> mcpExecutor -> McpServer', () =>
    a2aToMcp.send({ data: { tool: 'shout', arguments: { text: 'x' } } }),
  );
  added('MCP server as A2A agent', viaA2A, directTool);

  // AI SDK -> A2A
  const model = mockModel();
  const directModel = await timeCalls('streamText on a mock model', async () => {
    await streamText({ model, prompt: 'hi' }).text;
  });
  const llm = await serveAgent(aiSdkExecutor({ model: mockModel() }), {
    name: 'llm',
    description: 'mock',
    version: '1',
    skills: [{ id: 'chat', name: 'Chat', description: 'Talks.', tags: ['llm'] }],
  });
  const llmClient = await A2AClient.connect(llm.url);
  const viaExecutor = await timeCalls('A2A client -> aiSdkExecutor -> mock model', () =>
    llmClient.send({ text: 'hi' }),
  );
  added('AI SDK model as A2A agent', viaExecutor, directModel);

  await Promise.all([host.close(), mcp.close(), a2a.close(), a2aToMcp.close(), llmClient.close()]);
  await Promise.all([endpoint.close(), tools.close(), bench.close(), bridged.close(), llm.close()]);
}

await main();
