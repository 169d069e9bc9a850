/** The {@link RequestContext} an agent receives for one execution. */
import { Role } from '../../model/enums.js';
import { newId } from '../../model/ids.js';
import type { AgentCard, Message, SendMessageRequest, Task } from '../../model/schema.js';
import { activateExtension, type ServerCallContext } from '../context.js';
import { messageData, messageText, type RequestContext } from '../executor.js';
import type { StoredTask } from '../stores/task-store.js';
import type { Execution } from './execution.js';

/** The execution behind a context, for the shared `signal` getter. */
const EXECUTION = Symbol('a2a-kit execution');

interface ContextWithExecution {
  readonly [EXECUTION]: Execution;
}

/**
 * `signal` as an own enumerable accessor whose getter is shared by every context: the
 * AbortSignal is made on first read, `{ ...context }` still copies it, and every context keeps
 * one hidden class. (A getter written in the object literal made each context a dictionary-mode
 * object: about 0.6 µs and 1 KB more per execution.)
 */
const SIGNAL: PropertyDescriptor = {
  get(this: ContextWithExecution): AbortSignal {
    return this[EXECUTION].signal;
  },
  enumerable: true,
  configurable: true,
};

/** The context of `execution`. */
export function agentRequestContext(
  message: Message,
  existing: StoredTask | undefined,
  ctx: ServerCallContext,
  request: SendMessageRequest | undefined,
  execution: Execution,
  card: AgentCard,
  resumed = false,
): RequestContext {
  const context = {
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
    text: messageText(message),
    data: messageData(message),
    activateExtension: (uri: string) => activateExtension(ctx, card, uri),
    [EXECUTION]: execution,
  };
  Object.defineProperty(context, 'signal', SIGNAL);
  if (resumed) (context as { resumed?: boolean }).resumed = true;
  return context as typeof context & Pick<RequestContext, 'signal' | 'resumed'>;
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
