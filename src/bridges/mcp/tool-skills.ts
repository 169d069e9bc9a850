/**
 * An MCP server's tools as an A2A card: one skill per tool, its JSON schema in the skill's
 * description and an example message (`{"tool": ..., "arguments": ...}`) in its examples.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentSkill } from '../../model/schema.js';

/** Tools read from one server at most (pages of `tools/list` are followed up to this). */
export const MAX_TOOLS = 1_000;
const MAX_PAGES = 50;

/** The author-written part of an A2A card (what `createA2AServer({ card })` takes). */
export interface BridgeCard {
  name: string;
  description: string;
  version: string;
  skills: AgentSkill[];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
}

/** Every tool of the server behind `client` (at most `MAX_TOOLS`). */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
    const r = await client.listTools(cursor ? { cursor } : {}, signal ? { signal } : {});
    tools.push(...r.tools.slice(0, MAX_TOOLS - tools.length));
    if (!r.nextCursor || r.nextCursor === cursor) break;
    cursor = r.nextCursor;
  }
  return tools;
}

/** The skill of one tool. */
export function toolSkill(tool: Tool): AgentSkill {
  const schema = JSON.stringify(tool.inputSchema);
  return {
    id: tool.name,
    name: tool.title ?? tool.annotations?.title ?? tool.name,
    description:
      `${tool.description ?? `The MCP tool ${tool.name}.`}\n` +
      `Call it with a data part {"tool": "${tool.name}", "arguments": {...}}; arguments (JSON schema): ${schema}`,
    tags: ['mcp', 'tool'],
    examples: [JSON.stringify({ tool: tool.name, arguments: exampleArguments(tool) })],
    inputModes: ['application/json', 'text/plain'],
    outputModes: ['text/plain', 'application/json'],
  };
}

/** The card of an A2A agent serving the tools of the MCP server behind `client`. */
export function toolsCard(
  client: Client,
  tools: readonly Tool[],
  overrides: Partial<BridgeCard> = {},
): BridgeCard {
  const info = client.getServerVersion();
  const name = overrides.name ?? info?.name ?? 'mcp';
  const skills = tools.map(toolSkill);
  if (skills.length === 0)
    throw new Error(`the MCP server ${name} lists no tools: there is nothing to serve`);
  return {
    name,
    description:
      overrides.description ??
      client.getInstructions() ??
      `The tools of the MCP server ${name}: ${tools.map((t) => t.name).join(', ')}.`,
    version: overrides.version ?? info?.version ?? '0.0.0',
    skills,
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
  };
}

/** Placeholder arguments from a tool's schema: each required property with a value of its type. */
function exampleArguments(tool: Tool): Record<string, unknown> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const example: Record<string, unknown> = {};
  for (const key of tool.inputSchema.required ?? Object.keys(props)) {
    const type = props[key]?.type;
    example[key] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : '...';
  }
  return example;
}
