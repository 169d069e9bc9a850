/** `ifGenerationMatch` of SendMessage and SendStreamingMessage (A2A 1.1 draft, GEN-4). */
import { TaskGenerationMismatchError } from '../../errors/a2a-error.js';
import type { SendMessageRequest } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { generationOn, generationString, readGeneration } from '../generation.js';
import type { StoredTask } from '../stores/task-store.js';
import type { HandlerDependencies } from './dependencies.js';
import { invalidParam } from './refusals.js';

/**
 * The check a follow-up message's change runs on the version it replaces, or undefined when
 * there is none to run (no `ifGenerationMatch`, or a call that did not opt in: a v1.0 call
 * ignores the field, GEN-1). A new task ignores it (the draft's MUST): this runs only on an
 * existing task's change.
 */
export function generationCheck(
  deps: HandlerDependencies,
  request: SendMessageRequest,
  ctx: ServerCallContext,
): ((current: StoredTask) => void) | undefined {
  const raw = request.configuration?.ifGenerationMatch;
  if (raw === undefined || !generationOn(deps.generation, ctx)) return undefined;
  const expected = readGeneration(raw, (why) => invalidParam('configuration.ifGenerationMatch', why));
  return (current) => {
    if (current.version === expected) return;
    throw new TaskGenerationMismatchError(
      `Task generation mismatch: expected ${expected} but current generation is ${current.version}`,
      {
        metadata: {
          taskId: current.task.id,
          expectedGeneration: generationString(expected!),
          currentGeneration: generationString(current.version),
        },
      },
    );
  };
}
