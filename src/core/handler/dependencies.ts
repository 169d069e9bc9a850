/** What the operations of the default handler share. */
import type { AgentCard } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import type { EventBus } from '../event-bus/event-bus.js';
import type { AgentExecutor } from '../executor.js';
import type { PushConfigStore } from '../stores/push-config-store.js';
import type { StoredTask, TaskScope, TaskStore } from '../stores/task-store.js';
import type { TaskManager } from '../task-manager.js';
import type { GenerationSettings } from '../generation.js';
import type { ExecutionLeases } from '../recovery.js';
import { notFound } from './refusals.js';

/** The parts of one DefaultRequestHandler, handed to each of its operations. */
export interface HandlerDependencies {
  readonly executor: AgentExecutor;
  /** The public card, read per request (capabilities may change). */
  readonly card: () => AgentCard;
  readonly store: TaskStore;
  readonly pushStore: PushConfigStore;
  readonly bus: EventBus;
  readonly manager: TaskManager;
  /** Leases of running executions (crash recovery), when the store keeps them. */
  readonly leases: ExecutionLeases | undefined;
  /** Receives failures that are not protocol errors (an execution's end the store refused). */
  readonly onError: (error: unknown) => void;
  /** The A2A 1.1 draft support's settings; undefined when it is off (GEN-1). */
  readonly generation: GenerationSettings | undefined;
  /** Set once close() began: new work is refused. */
  closed: boolean;
}

/** The tasks a caller may see: its tenant and principal. */
export function scopeOf(ctx: ServerCallContext): TaskScope {
  return { tenant: ctx.tenant, owner: ctx.principal.id };
}

/** The caller's task, or TaskNotFoundError (also for another caller's task). */
export async function requireTask(
  deps: HandlerDependencies,
  ctx: ServerCallContext,
  taskId: string,
): Promise<StoredTask> {
  const record = await deps.manager.get(scopeOf(ctx), taskId);
  if (!record) throw notFound(taskId);
  return record;
}
