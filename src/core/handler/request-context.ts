/** The {@link RequestContext} an agent receives for one execution. */
import { Role } from '../../model/enums.js';
import { newId } from '../../model/ids.js';
import type { AgentCard, Message, SendMessageRequest, Task } from '../../model/schema.js';
import { activateExtension, type ServerCallContext } from '../context.js';
import { messageData, messageText, type RequestContext } from '../executor.js';
import type { StoredTask } from '../stores/task-store.js';
import type { Execution } from './execution.js';

/**
 * The context of `execution`. `signal` is an own enumerable getter, so the AbortSignal is
 * created on first read and still copied by `{ ...context }`.
 */
export function agentRequestContext(
  message: Message,
  existing: StoredTask | undefined,
  ctx: ServerCallContext,
  request: SendMessageRequest | undefined,
  execution: Execution,
  card: AgentCard,
  resumed = false,
): RequestContext {
  return {
    message,
    // A copy: the stored task is shared and must never be changed by the agent.
    task: existing ? structuredClone(existing.task) : undefined,
    taskId: message.taskId ?? existing?.task.id ?? '',
    contextId: message.contextId ?? existing?.task.contextId ?? '',
    principal: ctx.principal,
    tenant: ctx.tenant,
    requestedExtensions: ctx.requestedExtensions,
    configuration: request?.configuration,
    metadata: request?.metadata,
    get signal(): AbortSignal {
      return execution.signal;
    },
    text: messageText(message),
    data: messageData(message),
    activateExtension: (uri) => activateExtension(ctx, card, uri),
    ...(resumed ? { resumed: true } : {}),
  };
}

/** The client's latest message on `task` (for a cancel hook or a resumed execution), else an empty one. */
export function lastClientMessage(task: Task): Message {
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.role === Role.USER) return history[i]!;
  }
  return {
    messageId: newId(),
    role: Role.USER,
    parts: [{ text: '' }],
    taskId: task.id,
    contextId: task.contextId ?? '',
  };
}
