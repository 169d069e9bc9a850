/**
 * `a2aTool`: any A2A agent as an AI SDK tool, so that a model can delegate to it. The tool's
 * description comes from the agent's card (its description and skills); a call sends the
 * message and returns the answer's text and data, the task's state and ids. An agent that asks
 * for input returns its question with the taskId (the model answers with another call); one that
 * fails or rejects makes the call throw with its reason (the AI SDK hands that to the model); one
 * that does not answer within `timeoutMs` has its task canceled and the call throws.
 */
import { jsonSchema, tool, type Tool } from 'ai';
import { A2AClient, type A2AClientOptions, type StreamEvent } from '../../client/client.js';
import { isInterruptedState, isTerminalState, TaskState } from '../../model/enums.js';
import type { AgentCard, Message, Part, Task } from '../../model/schema.js';

/** What the model passes to an A2A tool. */
export interface A2AToolInput {
  message: string;
  /** Structured input, sent as a data part. */
  data?: Record<string, unknown>;
  taskId?: string;
  contextId?: string;
}

/** What an A2A tool returns to the model. */
export interface A2AToolOutput {
  /** `COMPLETED`, `INPUT_REQUIRED`, `AUTH_REQUIRED`, or `MESSAGE` for a direct reply. */
  state: string;
  /** The answer's text (artifacts and final message), or the agent's question. */
  text: string;
  /** Data parts of the answer, if any. */
  data?: unknown[];
  taskId?: string;
  contextId?: string;
}

/** Options of {@link a2aTool}. */
export interface A2AToolOptions {
  /** Client options when `agent` is a URL. */
  client?: A2AClientOptions;
  /** The tool's description. @default from the card */
  description?: string;
  /** The longest a call waits; then the task is canceled and the call throws. @default 120000 */
  timeoutMs?: number;
}

/** The AI SDK tool for the A2A agent at `agent` (a URL, or a connected client). */
export async function a2aTool(
  agent: string | A2AClient,
  options: A2AToolOptions = {},
): Promise<Tool<A2AToolInput, A2AToolOutput>> {
  const client = typeof agent === 'string' ? await A2AClient.connect(agent, options.client) : agent;
  const card = client.card;
  const timeoutMs = options.timeoutMs ?? 120_000;
  return tool({
    description: options.description ?? (card ? describeCard(card) : 'An A2A agent.'),
    inputSchema: jsonSchema<A2AToolInput>({
      type: 'object',
      properties: {
        message: { type: 'string', description: 'The message for the agent.' },
        data: {
          type: 'object',
          description: 'Optional structured input for the agent (sent as a data part).',
          additionalProperties: true,
        },
        taskId: {
          type: 'string',
          description: 'To answer a question the agent asked: the taskId it returned.',
        },
        contextId: {
          type: 'string',
          description: 'To continue a conversation: the contextId returned earlier.',
        },
      },
      required: ['message'],
    }),
    execute: (input, { abortSignal }) => callAgentTool(client, input, timeoutMs, abortSignal),
  });
}

function describeCard(card: AgentCard): string {
  const skills = card.skills.map((s) => `- ${s.name}: ${s.description}`).join('\n');
  return `Delegate to the A2A agent "${card.name}": ${card.description}\nSkills:\n${skills}`;
}

async function callAgentTool(
  client: A2AClient,
  input: A2AToolInput,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<A2AToolOutput> {
  if (typeof input?.message !== 'string') throw new Error('the A2A tool needs a "message" string');
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timed out'));
  }, timeoutMs);
  let task: Task | undefined;
  let message: Message | undefined;
  const parts: Part[] = [];
  const send = {
    text: input.message,
    ...(input.data !== null && typeof input.data === 'object' ? { data: input.data } : {}),
    ...(input.taskId ? { taskId: input.taskId } : {}),
    ...(input.contextId ? { contextId: input.contextId } : {}),
    signal: controller.signal,
  };
  const apply = (event: StreamEvent): void => {
    if (event.kind === 'message') message = event.message;
    else if (event.kind === 'task') task = event.task;
    else if (event.kind === 'statusUpdate') {
      const u = event.statusUpdate;
      task = { ...(task ?? { id: u.taskId, contextId: u.contextId }), status: u.status };
    } else {
      const u = event.artifactUpdate;
      task ??= { id: u.taskId, contextId: u.contextId, status: { state: TaskState.WORKING } };
      // Chunks of one artifact join as they are; a new artifact starts on a new line.
      if (!u.append && parts.length > 0) parts.push({ text: '\n' });
      if (parts.length < 10_000) parts.push(...u.artifact.parts.slice(0, 10_000 - parts.length));
    }
  };
  const ended = (): boolean =>
    message !== undefined ||
    (task !== undefined && (isTerminalState(task.status.state) || isInterruptedState(task.status.state)));
  try {
    if (client.card?.capabilities.streaming) {
      for await (const event of client.stream(send)) {
        apply(event);
        if (ended()) break;
      }
      if (!ended() && task) task = await client.getTask(task.id, { signal: controller.signal });
    } else {
      const reply = await client.send(send);
      if (reply.kind === 'message') message = reply.message;
      else task = reply.task;
    }
  } catch (error) {
    if (controller.signal.aborted && task) {
      await client.cancelTask(task.id, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    }
    if (timedOut)
      throw new Error(
        `the agent did not answer within ${timeoutMs} ms${task ? `; task ${task.id} was canceled` : ''}`,
      );
    throw error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
  if (message) return output('MESSAGE', message.parts, message.contextId, undefined);
  if (!task) throw new Error('the agent answered with neither a message nor a task');
  // Artifacts of a task read whole (not streamed) come with the task.
  if (parts.length === 0) {
    for (const a of task.artifacts ?? [])
      parts.push(...(parts.length > 0 ? [{ text: '\n' }] : []), ...a.parts);
  }
  const state = task.status.state;
  const statusParts = task.status.message?.parts ?? [];
  const name = state.replace(/^TASK_STATE_/, '');
  if (state === TaskState.COMPLETED)
    return output(
      name,
      [...parts, ...(parts.length && statusParts.length ? [{ text: '\n' }] : []), ...statusParts],
      task.contextId,
      task.id,
    );
  if (isInterruptedState(state)) return output(name, statusParts, task.contextId, task.id);
  const reason = statusParts
    .map((p) => p.text ?? '')
    .join(' ')
    .trim();
  throw new Error(`the agent's task ${task.id} ended ${name}${reason ? `: ${reason}` : ''}`);
}

function output(
  state: string,
  parts: readonly Part[],
  contextId: string | undefined,
  taskId: string | undefined,
): A2AToolOutput {
  const texts: string[] = [];
  const data: unknown[] = [];
  for (const p of parts) {
    if (p.text !== undefined) texts.push(p.text);
    else if (p.data !== undefined) data.push(p.data);
    else if (p.url !== undefined) texts.push(p.url);
    else if (p.raw !== undefined)
      texts.push(`[file ${[p.filename, p.mediaType].filter(Boolean).join(', ')}]\n`);
  }
  return {
    state,
    text: texts.join(''),
    ...(data.length ? { data } : {}),
    ...(taskId ? { taskId } : {}),
    ...(contextId ? { contextId } : {}),
  };
}
