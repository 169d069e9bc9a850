/** Connecting the MCP SDK's Client to a server: a command over stdio, or a Streamable HTTP URL. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The version this client announces (a2a-kit's). */
const KIT_VERSION = '0.1.0';

/** Where an MCP server is: a command to spawn (stdio) or a Streamable HTTP endpoint. */
export type McpServerTarget =
  | { command: string; args?: string[]; cwd?: string; env?: Record<string, string> }
  | { url: string; headers?: Record<string, string> };

/** A connected MCP client for `target`; close it with `client.close()` (which ends a spawned server). */
export async function connectMcpServer(target: McpServerTarget): Promise<Client> {
  const client = new Client({ name: 'a2a-kit', version: KIT_VERSION });
  const transport =
    'url' in target
      ? new StreamableHTTPClientTransport(new URL(target.url), {
          ...(target.headers ? { requestInit: { headers: target.headers } } : {}),
        })
      : new StdioClientTransport({
          command: target.command,
          ...(target.args ? { args: target.args } : {}),
          ...(target.cwd ? { cwd: target.cwd } : {}),
          ...(target.env ? { env: target.env } : {}),
          stderr: 'inherit',
        });
  await client.connect(transport);
  return client;
}
