/**
 * `createMcpServerFromAgent`: an A2A agent as an MCP server. Its skills are the tools (see
 * skill-tools.ts), its card the resource `a2a://card`, and the tasks its calls made the
 * resources `a2a://tasks/<id>` (read live with GetTask). Connect the returned server to any MCP
 * transport (stdio, Streamable HTTP); one server serves one connection.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { A2AClient } from '../../client/client.js';
import type { AgentCard } from '../../model/schema.js';
import { callAgent, errorResult, type ProgressReporter } from './agent-call.js';
import { parseSkillArguments, skillTools } from './skill-tools.js';

/** Options of {@link createMcpServerFromAgent}. */
export interface AgentMcpServerOptions {
  /** The agent's card, when the client was not made by `A2AClient.connect`. @default client.card */
  card?: AgentCard;
  /** The MCP server's name. @default the card's name */
  name?: string;
  /**
   * The longest one tool call waits for the agent; then the call ends with an error result and
   * the A2A task is canceled. @default 300000 (5 minutes)
   */
  timeoutMs?: number;
  /** Tasks listed as resources (the latest calls' tasks). @default 100 */
  maxListedTasks?: number;
}

const CARD_URI = 'a2a://card';
const TASK_URI = /^a2a:\/\/tasks\/([^/]+)$/;

/** An MCP server that exposes the agent behind `client`. */
export function createMcpServerFromAgent(client: A2AClient, options: AgentMcpServerOptions = {}): Server {
  const card = options.card ?? client.card;
  if (!card)
    throw new TypeError(
      'createMcpServerFromAgent needs the agent card: use A2AClient.connect or pass options.card',
    );
  const tools = skillTools(card);
  const byName = new Map(tools.map((t) => [t.tool.name, t]));
  const timeoutMs = options.timeoutMs ?? 300_000;
  const maxListed = options.maxListedTasks ?? 100;
  /** Task ids of the latest calls, oldest first (a bounded, insertion-ordered set). */
  const recent = new Set<string>();
  const remember = (taskId: string): void => {
    recent.delete(taskId);
    recent.add(taskId);
    if (recent.size > maxListed) recent.delete(recent.values().next().value as string);
  };

  const server = new Server(
    { name: options.name ?? card.name, version: card.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: `Tools of the A2A agent "${card.name}": ${card.description}`,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => t.tool) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    if (!byName.has(name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name)} (tools: ${[...byName.keys()].join(', ')})`,
      );
    }
    const args = parseSkillArguments(request.params.arguments ?? {});
    if (typeof args === 'string') return errorResult(`bad arguments for ${name}: ${args}`);
    const token = extra._meta?.progressToken;
    let step = 0;
    const progress: ProgressReporter | undefined =
      token === undefined
        ? undefined
        : (message) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: ++step, message },
            });
    return callAgent(client, args, {
      toolName: name,
      signal: extra.signal,
      timeoutMs,
      progress,
      onTask: remember,
    });
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      { uri: CARD_URI, name: 'agent-card', title: `${card.name}: agent card`, mimeType: 'application/json' },
      ...[...recent].reverse().map((id) => ({
        uri: `a2a://tasks/${id}`,
        name: `task-${id}`,
        title: `A2A task ${id}`,
        mimeType: 'application/json',
      })),
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'a2a://tasks/{taskId}',
        name: 'task',
        title: 'An A2A task of this agent',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    if (uri === CARD_URI) {
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(client.card ?? card, null, 2) }],
      };
    }
    const m = TASK_URI.exec(uri);
    if (!m)
      throw new McpError(ErrorCode.InvalidParams, `no such resource: ${uri} (a2a://card, a2a://tasks/<id>)`);
    let taskId: string;
    try {
      taskId = decodeURIComponent(m[1]!);
    } catch {
      throw new McpError(ErrorCode.InvalidParams, `not a task URI: ${uri}`);
    }
    try {
      const task = await client.getTask(taskId, { signal: extra.signal });
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(task, null, 2) }] };
    } catch (error) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `task ${taskId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });

  return server;
}
