/**
 * `a2a mcp <agent-url>`: an A2A agent as an MCP server, on stdio (for desktop assistants and
 * IDEs that spawn it) or, with `--http`, on Streamable HTTP. On stdio, stdout carries MCP only:
 * every note goes to stderr. The bridge is loaded on demand, so the MCP SDK (an optional peer)
 * is only needed by this command.
 */
import type { Command } from 'commander';
import {
  connect,
  fail,
  processIO,
  withConnectionOptions,
  type ConnectionOptions,
  parseDuration,
} from './common.js';

/** Options of `a2a mcp`. */
interface McpCommandOptions extends ConnectionOptions {
  http?: boolean;
  port?: number;
  host: string;
  callTimeout?: number;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) throw new Error(`not a port number: ${value}`);
  return port;
}

/** Runs the bridge until stdin closes (stdio) or SIGINT/SIGTERM (HTTP). */
async function runMcp(url: string, opts: McpCommandOptions): Promise<void> {
  const { createMcpServerFromAgent, serveMcpOverHttp } = await import('../bridges/mcp/index.js');
  const client = await connect(url, opts);
  const serverOptions = opts.callTimeout !== undefined ? { timeoutMs: opts.callTimeout } : {};
  if (!opts.http) {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = createMcpServerFromAgent(client, serverOptions);
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve;
      process.stdin.once('end', resolve);
    });
    await server.connect(new StdioServerTransport());
    process.stderr.write(`a2a mcp: ${client.card.name} (${client.card.skills.length} tools) on stdio\n`);
    await closed;
    await server.close().catch(() => undefined);
    await client.close();
    return;
  }
  const endpoint = await serveMcpOverHttp(() => createMcpServerFromAgent(client, serverOptions), {
    port: opts.port ?? 0,
    host: opts.host,
  });
  process.stdout.write(`a2a mcp: ${client.card.name} at ${endpoint.url} (Streamable HTTP)\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await endpoint.close();
  await client.close();
}

/** Adds `mcp` to the `a2a` program. */
export function registerMcpCommand(program: Command): void {
  withConnectionOptions(
    program
      .command('mcp <agent-url>')
      .description(
        'serve an A2A agent as an MCP server (one tool per skill) on stdio, or Streamable HTTP with --http',
      )
      .option('--http', 'serve MCP over Streamable HTTP instead of stdio')
      .option('-p, --port <port>', 'with --http: the port (0 picks a free one)', parsePort)
      .option('-H, --host <host>', 'with --http: the interface to listen on', '127.0.0.1')
      .option(
        '--call-timeout <duration>',
        'longest wait for the agent per tool call (default 5m)',
        parseDuration,
      ),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ a2a mcp 127.0.0.1:41241                        stdio, for an MCP host that spawns it
  $ a2a mcp https://agent.example.com --token T --http --port 8808
`,
    )
    .action(async (url: string, opts: McpCommandOptions) => {
      try {
        await runMcp(url, opts);
      } catch (error) {
        fail(processIO(), error, opts, url);
      }
    });
}
