/**
 * One MCP tool call answered by an A2A agent: send the message (streamed when the card allows),
 * turn progress into MCP progress notifications, and end in one CallToolResult: the artifacts
 * and the final message as content, a question with its taskId when the agent asks for input,
 * an `isError` result when the agent fails, rejects, or does not answer in time (its task is
 * then canceled). A canceled MCP request cancels the A2A task.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { A2AClient, StreamEvent } from '../../client/client.js';
import { isInterruptedState, isTerminalState, TaskState } from '../../model/enums.js';
import type { Artifact, Message, Task } from '../../model/schema.js';
import { partToContent } from './content.js';
import type { SkillToolArguments } from './skill-tools.js';

/** Parts the bridge keeps per call across artifact chunks; more are dropped with a note. */
const MAX_PARTS = 10_000;
/** How long the bridge waits for CancelTask after a canceled or timed-out call. */
const CANCEL_WAIT_MS = 10_000;

/** How a call reports progress (an MCP progress notification when the host asked for them). */
export type ProgressReporter = (message: string) => Promise<void>;

/** What one call needs besides its arguments. */
export interface AgentCallOptions {
  readonly toolName: string;
  /** Aborted when the MCP host cancels the request. */
  readonly signal: AbortSignal;
  /** The longest the agent may take before the call ends with an error and its task is canceled. */
  readonly timeoutMs: number;
  readonly progress: ProgressReporter | undefined;
  /** Told of every task the call creates or continues (for the task resources). */
  readonly onTask: (taskId: string) => void;
}

/** What a call has seen of its task so far. */
class CallState {
  message: Message | undefined;
  task: Task | undefined;
  readonly artifacts = new Map<string, Artifact>();
  parts = 0;
  dropped = false;

  apply(event: StreamEvent): string | undefined {
    switch (event.kind) {
      case 'message':
        this.message = event.message;
        return undefined;
      case 'task':
        this.task = event.task;
        for (const a of event.task.artifacts ?? []) this.artifacts.set(a.artifactId, a);
        return `task ${event.task.id}: ${stateName(event.task.status.state)}`;
      case 'statusUpdate': {
        const u = event.statusUpdate;
        this.task = this.task
          ? { ...this.task, status: u.status }
          : { id: u.taskId, contextId: u.contextId, status: u.status };
        const text = u.status.message ? messageText(u.status.message) : '';
        return `${stateName(u.status.state)}${text ? `: ${text}` : ''}`;
      }
      default: {
        const { artifact, append, taskId, contextId } = event.artifactUpdate;
        this.task ??= { id: taskId, contextId, status: { state: TaskState.WORKING } };
        const earlier = this.artifacts.get(artifact.artifactId);
        const room = MAX_PARTS - this.parts;
        const parts = artifact.parts.slice(0, Math.max(0, room));
        if (parts.length < artifact.parts.length) this.dropped = true;
        this.parts += parts.length;
        if (append && earlier) earlier.parts.push(...parts);
        else if (parts.length > 0)
          this.artifacts.set(artifact.artifactId, { ...artifact, parts: [...parts] });
        return `artifact ${artifact.name ?? artifact.artifactId}`;
      }
    }
  }

  get done(): boolean {
    const state = this.task?.status.state;
    return (
      this.message !== undefined ||
      (state !== undefined && (isTerminalState(state) || isInterruptedState(state)))
    );
  }
}

/** Runs the call; never throws (every failure is an `isError` result). */
export async function callAgent(
  client: A2AClient,
  args: SkillToolArguments,
  options: AgentCallOptions,
): Promise<CallToolResult> {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(new Error('the MCP request was canceled'));
  options.signal.addEventListener('abort', onCancel, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timed out'));
  }, options.timeoutMs);
  const state = new CallState();
  try {
    const input = {
      text: args.message,
      ...(args.data !== undefined ? { data: args.data } : {}),
      ...(args.taskId ? { taskId: args.taskId } : {}),
      ...(args.contextId ? { contextId: args.contextId } : {}),
      signal: controller.signal,
    };
    if (client.card?.capabilities.streaming) {
      for await (const event of client.stream(input)) {
        const note = state.apply(event);
        if (state.task) options.onTask(state.task.id);
        if (note && options.progress) await options.progress(note).catch(() => undefined);
        if (state.done) break;
      }
    } else {
      const reply = await client.send(input);
      state.apply(reply.kind === 'message' ? reply : { kind: 'task', task: reply.task });
      if (state.task) options.onTask(state.task.id);
    }
    // A stream that closed before the task ended: its stored state is the answer.
    if (!state.done && state.task)
      state.apply({ kind: 'task', task: await client.getTask(state.task.id, { signal: controller.signal }) });
    return toResult(state, options.toolName);
  } catch (error) {
    const taskId = state.task?.id;
    if (controller.signal.aborted && taskId) await cancelQuietly(client, taskId);
    if (timedOut) {
      return errorResult(
        `the agent did not answer within ${options.timeoutMs} ms${taskId ? `; task ${taskId} was canceled` : ''}`,
      );
    }
    if (options.signal.aborted) return errorResult('the call was canceled');
    return errorResult(`the agent could not be reached or refused the call: ${describe(error)}`);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onCancel);
  }
}

async function cancelQuietly(client: A2AClient, taskId: string): Promise<void> {
  try {
    await client.cancelTask(taskId, { signal: AbortSignal.timeout(CANCEL_WAIT_MS) });
  } catch {
    // Already ended, or the agent is gone: the call's own error says what happened.
  }
}

function toResult(state: CallState, toolName: string): CallToolResult {
  if (state.message) return { content: contentOf(state.message.parts, 'a2a://messages', []) };
  const task = state.task;
  if (!task) return errorResult('the agent answered with neither a message nor a task');
  const ids = { taskId: task.id, contextId: task.contextId, state: stateName(task.status.state) };
  const reason = task.status.message ? messageText(task.status.message) : '';
  const content: ContentBlock[] = [];
  for (const artifact of state.artifacts.values()) {
    contentOf(
      artifact.parts,
      `a2a://tasks/${task.id}/artifacts/${encodeURIComponent(artifact.artifactId)}`,
      content,
    );
  }
  if (state.dropped) content.push({ type: 'text', text: `[output cut at ${MAX_PARTS} parts]` });
  switch (task.status.state) {
    case TaskState.COMPLETED:
      if (task.status.message) contentOf(task.status.message.parts, `a2a://tasks/${task.id}/status`, content);
      if (content.length === 0)
        content.push({ type: 'text', text: `Task ${task.id} completed with no output.` });
      return { content, structuredContent: ids };
    case TaskState.INPUT_REQUIRED:
    case TaskState.AUTH_REQUIRED: {
      const what = task.status.state === TaskState.INPUT_REQUIRED ? 'needs input' : 'needs authorization';
      content.push({
        type: 'text',
        text:
          `The agent ${what}${reason ? `: ${reason}` : '.'}\n` +
          `To answer, call ${toolName} again with taskId "${task.id}" and contextId "${task.contextId}".`,
      });
      return { content, structuredContent: ids };
    }
    default:
      content.unshift({
        type: 'text',
        text: `Task ${task.id} ${stateName(task.status.state).toLowerCase()}${reason ? `: ${reason}` : ''}`,
      });
      return { content, structuredContent: ids, isError: true };
  }
}

function contentOf(parts: Message['parts'], uriBase: string, into: ContentBlock[]): ContentBlock[] {
  parts.forEach((part, i) => into.push(partToContent(part, uriBase, i)));
  return into;
}

/** An MCP tool error result saying `text`. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function stateName(state: TaskState): string {
  return state.replace(/^TASK_STATE_/, '');
}

function messageText(message: Message): string {
  return message.parts
    .map((p) => (p.text !== undefined ? p.text : p.data !== undefined ? JSON.stringify(p.data) : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function describe(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
      : String(error);
  return text.split('\n')[0]!;
}
