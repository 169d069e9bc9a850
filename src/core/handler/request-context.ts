/** The {@link RequestContext} an agent receives for one execution. */
import type { AgentCard, Message, SendMessageRequest } from '../../model/schema.js';
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
