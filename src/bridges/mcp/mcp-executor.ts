/**
 * `mcpExecutor`: the tools of an MCP server as an A2A agent. A message whose data part is
 * `{"tool": "<name>", "arguments": {...}}` calls that tool; a message without one calls the only
 * tool (its text as the tool's one string argument, or as a JSON object of arguments), or is
 * refused with InvalidParams naming the tools. MCP progress becomes WORKING updates, the result
 * the artifact `result`, a tool error or a result A2A cannot hold a FAILED task with the reason;
 * CancelTask cancels the MCP request; a tool that does not answer within `timeoutMs` fails.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../core/executor.js';
import { createError } from '../../errors/a2a-error.js';
import { resultToParts, UnrepresentableContentError } from './content.js';
import { listAllTools } from './tool-skills.js';

/** Options of {@link mcpExecutor}. */
export interface McpExecutorOptions {
  /** The longest one tool call may take; then the task fails. @default 300000 (5 minutes) */
  timeoutMs?: number;
  /** The tools to serve, when already listed (e.g. for the card). @default listed on first use */
  tools?: readonly Tool[];
  /**
   * Makes a new client when the connection closed (a spawned server that exited): the next
   * message reconnects instead of failing. Without it, messages after a close fail.
   */
  reconnect?: () => Promise<Client>;
}

/** What a message asks for: the tool and its arguments. */
interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** An AgentExecutor calling the tools of the MCP server behind `client`. */
export function mcpExecutor(client: Client, options: McpExecutorOptions = {}): AgentExecutor {
  const timeoutMs = options.timeoutMs ?? 300_000;
  let current = client;
  let closed = false;
  const watch = (c: Client): void => {
    const previous = c.onclose;
    c.onclose = () => {
      if (c === current) closed = true;
      previous?.();
    };
  };
  watch(current);
  let reconnecting: Promise<Client> | undefined;
  const connected = (): Promise<Client> => {
    if (!closed || !options.reconnect) return Promise.resolve(current);
    reconnecting ??= options.reconnect().then(
      (fresh) => {
        current = fresh;
        closed = false;
        watch(fresh);
        reconnecting = undefined;
        return fresh;
      },
      (error: unknown) => {
        reconnecting = undefined;
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`the MCP server closed and could not be reached again: ${reason}`);
      },
    );
    return reconnecting;
  };
  let tools: Promise<readonly Tool[]> | undefined = options.tools
    ? Promise.resolve(options.tools)
    : undefined;
  const toolList = (): Promise<readonly Tool[]> => {
    tools ??= listAllTools(current).catch((error: unknown) => {
      tools = undefined; // listed again on the next message
      throw error;
    });
    return tools;
  };
  return {
    async execute(ctx, task) {
      const mcp = await connected();
      const call = chooseCall(ctx, await toolList());
      await task.working(`calling ${call.name}`);
      const progress = progressWriter(task);
      let result: CallToolResult;
      try {
        result = (await mcp.callTool({ name: call.name, arguments: call.arguments }, undefined, {
          signal: ctx.signal,
          timeout: timeoutMs,
          onprogress: (p) =>
            progress(
              p.message ?? `${call.name}: ${p.progress}${p.total !== undefined ? ` of ${p.total}` : ''}`,
            ),
        })) as CallToolResult;
      } catch (error) {
        await progress.settled();
        if (ctx.signal.aborted) return; // CancelTask: the task is already CANCELED
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          return task.fail(`the MCP tool ${call.name} did not answer within ${timeoutMs} ms`);
        }
        return task.fail(
          `the MCP tool ${call.name} failed: ${oneLine(error instanceof Error ? error.message : String(error))}`,
        );
      }
      await progress.settled();
      if (result.isError) {
        const text = textOf(result) || 'no reason given';
        return task.fail(`the MCP tool ${call.name} returned an error: ${text}`);
      }
      let parts;
      try {
        parts = resultToParts(result);
      } catch (error) {
        if (!(error instanceof UnrepresentableContentError)) throw error;
        return task.fail(`the MCP tool ${call.name} returned content A2A cannot hold: ${error.message}`);
      }
      if (parts.length === 0) return task.complete();
      await task.artifact({ artifactId: 'result', name: `${call.name} result`, parts }, { lastChunk: true });
      return task.complete();
    },
  };
}

/** The tool call `ctx` asks for, or InvalidParams saying what to send. */
function chooseCall(ctx: RequestContext, tools: readonly Tool[]): ToolCall {
  const names = tools.map((t) => t.name);
  const list = names.join(', ');
  const data = ctx.data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && 'tool' in data) {
    const { tool, arguments: args } = data as { tool: unknown; arguments?: unknown };
    if (typeof tool !== 'string' || !names.includes(tool)) {
      throw createError('InvalidParams', `unknown tool ${JSON.stringify(tool)}; this agent's tools: ${list}`);
    }
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      throw createError('InvalidParams', `"arguments" of ${tool} must be an object`);
    }
    return { name: tool, arguments: (args ?? {}) as Record<string, unknown> };
  }
  if (tools.length !== 1) {
    throw createError(
      'InvalidParams',
      `this agent serves ${tools.length} MCP tools (${list}); send a data part {"tool": "<name>", "arguments": {...}}`,
    );
  }
  const tool = tools[0]!;
  return { name: tool.name, arguments: textArguments(tool, ctx) };
}

/** The arguments a message without a tool name gives the only tool. */
function textArguments(tool: Tool, ctx: RequestContext): Record<string, unknown> {
  if (ctx.data !== null && typeof ctx.data === 'object' && !Array.isArray(ctx.data)) {
    return ctx.data as Record<string, unknown>;
  }
  const props = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>);
  const strings = props.filter(([, p]) => p.type === 'string');
  if (props.length === 0) return {};
  if (strings.length === 1 && (tool.inputSchema.required ?? []).every((r) => r === strings[0]![0])) {
    return { [strings[0]![0]]: ctx.text };
  }
  try {
    const parsed: unknown = JSON.parse(ctx.text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON: refused below
  }
  throw createError(
    'InvalidParams',
    `the tool ${tool.name} takes ${props.map(([k]) => k).join(', ')}: send them as a data part {"tool": "${tool.name}", "arguments": {...}} or as a JSON object`,
  );
}

/**
 * Writes progress as WORKING updates one at a time, keeping only the latest while one is being
 * written, so a chatty tool cannot queue unbounded writes.
 */
function progressWriter(task: TaskEventSink): ((text: string) => void) & { settled(): Promise<void> } {
  let writing: Promise<void> | undefined;
  let next: string | undefined;
  const pump = (): void => {
    if (writing || next === undefined) return;
    const text = next;
    next = undefined;
    writing = task
      .working(text)
      .catch(() => undefined)
      .then(() => {
        writing = undefined;
        pump();
      });
  };
  const write = (text: string): void => {
    next = text;
    pump();
  };
  return Object.assign(write, {
    async settled() {
      next = undefined;
      for (let i = 0; writing && i < 3; i++) await writing;
    },
  });
}

function textOf(result: CallToolResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n')
    .slice(0, 2_000);
}

/** A reason on one line, at most 1000 characters (MCP errors can carry pretty-printed JSON). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 1000 ? `${line.slice(0, 999)}…` : line;
}
