/**
 * `a2a serve --mcp "<command>"` / `--mcp-url <url>`: an MCP server's tools as an A2A agent. The
 * bridge and the MCP SDK (an optional peer) are loaded only when asked for.
 */
import type { AgentExecutor } from '../core/executor.js';
import type { AgentCardConfig } from '../server/card/build.js';

/** The executor and card of the MCP server, and how to let it go. */
export interface McpAgent {
  executor: AgentExecutor;
  card: AgentCardConfig;
  close(): Promise<void>;
}

/** Connects to the MCP server (`command` spawned over stdio, or `url`) and lists its tools. */
export async function openMcpAgent(target: { command?: string; url?: string }): Promise<McpAgent> {
  const { connectMcpServer, listAllTools, mcpExecutor, toolsCard } = await import('../bridges/mcp/index.js');
  let where: Parameters<typeof connectMcpServer>[0];
  if (target.url) where = { url: target.url };
  else {
    const [command, ...args] = splitCommandLine(target.command ?? '');
    if (!command) throw new Error('--mcp needs a command');
    where = { command, args };
  }
  const connectTo = async () => {
    try {
      return await connectMcpServer(where);
    } catch (error) {
      const what = target.url ? `at ${target.url}` : `"${target.command}"`;
      throw new Error(
        `the MCP server ${what} did not start or answer: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  let client = await connectTo();
  // A spawned server that exits is started again for the next message.
  const reconnect = async () => (client = await connectTo());
  try {
    const tools = await listAllTools(client);
    return {
      executor: mcpExecutor(client, { tools, reconnect }),
      card: toolsCard(client, tools),
      close: () => client.close(),
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Splits a command line into words, honouring '...' and "..." quotes and backslash escapes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word = (word ?? '') + line[++i];
      else word = (word ?? '') + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (quote) throw new Error(`unclosed ${quote} in ${JSON.stringify(line)}`);
  if (word !== undefined) words.push(word);
  return words;
}
