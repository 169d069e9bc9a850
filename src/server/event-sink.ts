/**
 * The {@link TaskEventSink} bound to one execution of an agent. It turns the agent's calls
 * into TaskManager changes, in call order, and refuses illegal ones with
 * InvalidAgentResponseError before anything is written.
 */
import { A2AError, InvalidAgentResponseError } from '../errors/a2a-error.js';
import { isTerminalState, Role, TaskState } from '../model/enums.js';
import { newId } from '../model/ids.js';
import { Part as PartSchema, type Artifact, type Message, type Part } from '../model/schema.js';
import { compile } from '../model/validate.js';
import type { ArtifactChunkOptions, ArtifactInput, MessageInput, TaskEventSink } from './executor.js';
import { IllegalTaskEventError, statusChange, type TaskManager } from './task-manager.js';
import { snapshotTask } from './task-snapshot.js';
import type { StoredTask, TaskScope } from './stores/task-store.js';
import { yieldIfBusy } from './time-slice.js';

const partValidator = compile(PartSchema);

/** The task changed after an execution's last event; its end must not touch it. */
class StaleFinishError extends Error {}

/** What the first event of an execution produced. */
export type ExecutionOutcome =
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'task'; readonly record: StoredTask };

/** Facts the sink needs about the execution it serves. */
export interface SinkInit {
  readonly manager: TaskManager;
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  /** The client's message (first history entry of a new task). */
  readonly clientMessage: Message;
  /** The task record when the message continues an existing task (already recorded). */
  readonly existing: StoredTask | undefined;
  /**
   * The task was created before the agent ran (returnImmediately): a reply() as the first
   * event completes it with the reply as status message instead of being refused.
   */
  readonly replyCompletes?: boolean;
  /** Metadata of the SendMessage request, kept on a new task. */
  readonly requestMetadata?: Record<string, unknown>;
}

type Phase = 'fresh' | 'task' | 'replied' | 'closed';

/** One execution's event sink. The handler calls {@link ExecutionSink.finish} when execute() settles. */
export class ExecutionSink implements TaskEventSink {
  readonly taskId: string;
  readonly contextId: string;
  readonly #init: SinkInit;
  #phase: Phase;
  /** Settles after the latest event's step; never rejects. */
  #chain: Promise<void> = Promise.resolve();
  /** Steps enqueued and not yet settled. */
  #queued = 0;
  #last: StoredTask | undefined;
  /** Set as soon as execute() settled: later calls are refused at once. */
  #returned = false;
  /** Events accepted from the agent so far. */
  #emitted = 0;
  /** Artifact ids whose last chunk was sent by this execution. */
  #finished: Set<string> | undefined;
  #resolveOutcome!: (outcome: ExecutionOutcome) => void;
  #rejectOutcome!: (error: unknown) => void;
  /** Resolves at the execution's first accepted event (or its end, when it emitted none). */
  readonly outcome: Promise<ExecutionOutcome>;

  constructor(init: SinkInit) {
    this.#init = init;
    this.taskId = init.taskId;
    this.contextId = init.contextId;
    this.#phase = init.existing ? 'task' : 'fresh';
    this.#last = init.existing;
    this.outcome = new Promise<ExecutionOutcome>((resolve, reject) => {
      this.#resolveOutcome = resolve;
      this.#rejectOutcome = reject;
    });
    // Nobody may await the outcome (returnImmediately callers that went away); never unhandled.
    this.outcome.catch(() => {});
    // A snapshot: this execution's events extend the stored task's arrays in place.
    if (init.existing) {
      this.#resolveOutcome({
        kind: 'task',
        record: { ...init.existing, task: snapshotTask(init.existing.task) },
      });
    }
  }

  reply(message: MessageInput): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#phase === 'task' && this.#init.replyCompletes && this.#emitted === 0) {
        this.#last = await this.#init.manager.setStatus(
          this.#init.scope,
          this.taskId,
          TaskState.COMPLETED,
          this.#message(message),
          undefined,
          this.#latest(),
        );
        return;
      }
      if (this.#phase !== 'fresh') {
        throw new InvalidAgentResponseError(
          this.#phase === 'replied'
            ? 'the agent already replied with a message; a direct reply is the only event of its request'
            : `reply() is only valid as the first and only event of a new request, but task ${this.taskId} exists; use working(), complete() or requireInput()`,
        );
      }
      const msg = this.#message(message, false);
      this.#phase = 'replied';
      this.#resolveOutcome({ kind: 'message', message: msg });
    });
  }

  working(message?: MessageInput): Promise<void> {
    return this.status(TaskState.WORKING, message);
  }

  status(state: TaskState, message?: MessageInput, metadata?: Record<string, unknown>): Promise<void> {
    return this.#enqueue(async () => {
      this.#checkOpen();
      const msg = message === undefined ? undefined : this.#message(message);
      if (this.#phase === 'fresh') {
        await this.#create(state, msg, undefined);
        return;
      }
      this.#last = await this.#init.manager.setStatus(
        this.#init.scope,
        this.taskId,
        state,
        msg,
        metadata,
        this.#latest(),
      );
    });
  }

  artifact(artifact: ArtifactInput, options: ArtifactChunkOptions = {}): Promise<void> {
    return this.#enqueue(async () => {
      this.#checkOpen();
      const built = this.#artifact(artifact);
      if (this.#finished?.has(built.artifactId)) {
        throw new InvalidAgentResponseError(
          `artifact ${built.artifactId} already had its last chunk; it cannot be extended`,
        );
      }
      if (this.#phase === 'fresh') {
        if (options.append) {
          throw new InvalidAgentResponseError(`append to artifact ${built.artifactId}, which was never sent`);
        }
        await this.#create(TaskState.WORKING, undefined, [built]);
      } else {
        this.#last = await this.#init.manager.addArtifact(this.#init.scope, this.taskId, built, {
          ...(options.append ? { append: true } : {}),
          ...(options.lastChunk ? { lastChunk: true } : {}),
          latest: this.#latest(),
        });
      }
      if (options.lastChunk) (this.#finished ??= new Set()).add(built.artifactId);
    });
  }

  complete(artifact?: ArtifactInput | string, message?: MessageInput): Promise<void> {
    return this.#enqueue(async () => {
      this.#checkOpen();
      const built =
        artifact === undefined
          ? undefined
          : this.#artifact(typeof artifact === 'string' ? { text: artifact } : artifact);
      const msg = message === undefined ? undefined : this.#message(message);
      if (this.#phase === 'fresh') {
        await this.#create(TaskState.COMPLETED, msg, built ? [built] : undefined);
        return;
      }
      const { manager, scope } = this.#init;
      // Refuse before writing the artifact when the task can no longer complete.
      const state = this.#last?.task.status.state;
      if (state !== undefined && isTerminalState(state)) {
        throw new IllegalTaskEventError(`task is ${state}, a terminal state; it cannot become COMPLETED`);
      }
      if (built)
        this.#last = await manager.addArtifact(scope, this.taskId, built, { latest: this.#latest() });
      this.#last = await manager.setStatus(
        scope,
        this.taskId,
        TaskState.COMPLETED,
        msg,
        undefined,
        this.#latest(),
      );
    });
  }

  requireInput(question: MessageInput): Promise<void> {
    return this.status(TaskState.INPUT_REQUIRED, question);
  }

  requireAuth(explanation: MessageInput): Promise<void> {
    return this.status(TaskState.AUTH_REQUIRED, explanation);
  }

  fail(reason: MessageInput | Error): Promise<void> {
    return this.status(TaskState.FAILED, reason instanceof Error ? errorText(reason) : reason);
  }

  reject(reason: MessageInput): Promise<void> {
    return this.status(TaskState.REJECTED, reason);
  }

  cancel(reason?: MessageInput): Promise<void> {
    return this.status(TaskState.CANCELED, reason);
  }

  /** Refuses further events without applying the return rules (used after a cancel hook). */
  async seal(): Promise<void> {
    this.#returned = true;
    await this.#chain;
    this.#phase = 'closed';
  }

  /**
   * Ends the execution after execute() settled (`error` when it threw). Applies the
   * return rules of AgentExecutor.execute, then refuses further events. An A2AError thrown
   * before any event rejects {@link ExecutionSink.outcome}: the client gets it instead of a task.
   * `othersRunning`: another execution of the same task is still running, so a returned
   * execution does not complete the task.
   */
  async finish(error: unknown, threw: boolean, othersRunning: boolean): Promise<void> {
    this.#returned = true;
    await this.#chain;
    const phase = this.#phase;
    this.#phase = 'closed';
    if (phase === 'replied') return;
    const { manager, scope } = this.#init;
    try {
      if (phase === 'fresh') {
        if (threw && error instanceof A2AError && !(error instanceof InvalidAgentResponseError)) {
          this.#rejectOutcome(error);
          return;
        }
        const state = threw ? TaskState.FAILED : TaskState.COMPLETED;
        await this.#create(state, threw ? this.#message(errorText(error)) : undefined, undefined);
        return;
      }
      // Act only when nothing changed the task since this execution's last event: a client
      // message or another execution may have taken over meanwhile (checked in the task's
      // serialized section, so no other change slips in between).
      const expected = this.#last?.version;
      const current = await manager.get(scope, this.taskId);
      if (!current || current.version !== expected) return;
      const state = current.task.status.state;
      if (isTerminalState(state)) return;
      if (threw || ((state === TaskState.SUBMITTED || state === TaskState.WORKING) && !othersRunning)) {
        const next = threw ? TaskState.FAILED : TaskState.COMPLETED;
        const message = threw ? this.#message(errorText(error)) : undefined;
        this.#last = await manager.update(scope, this.taskId, (now) => {
          if (now.version !== expected) throw new StaleFinishError();
          return statusChange(now.task, next, message, undefined);
        });
      } else if (state === TaskState.AUTH_REQUIRED) {
        await manager.publishExecutionEnded(scope, current);
      }
    } catch (finishError) {
      // The task moved on meanwhile (a concurrent cancel or message); nothing left to do.
      if (!(finishError instanceof InvalidAgentResponseError) && !(finishError instanceof StaleFinishError)) {
        throw finishError;
      }
    }
  }

  async #create(
    state: TaskState,
    statusMessage: Message | undefined,
    artifacts: Artifact[] | undefined,
  ): Promise<void> {
    const { manager, scope, clientMessage, requestMetadata } = this.#init;
    const record = await manager.create(scope, {
      id: this.taskId,
      contextId: this.contextId,
      state,
      history: [clientMessage],
      ...(statusMessage ? { statusMessage } : {}),
      ...(artifacts ? { artifacts } : {}),
      ...(requestMetadata ? { metadata: requestMetadata } : {}),
    });
    this.#phase = 'task';
    this.#last = record;
    // A snapshot: this execution's next events extend the stored task's arrays in place.
    this.#resolveOutcome({ kind: 'task', record: { ...record, task: snapshotTask(record.task) } });
  }

  /**
   * The latest record this execution knows (its last write, or the task it continues), which
   * the manager tries as the current task and extends in place; a stale one loses the
   * version check and the change is retried on the stored task.
   */
  #latest(): StoredTask | undefined {
    return this.#last;
  }

  #checkOpen(): void {
    if (this.#phase === 'replied') {
      throw new InvalidAgentResponseError(
        'the agent already replied with a message; it cannot also emit task events',
      );
    }
    if (this.#phase === 'closed') {
      throw new InvalidAgentResponseError(
        `execute() already returned; task ${this.taskId} takes no more events from it`,
      );
    }
  }

  /** Runs `step` after the sink's earlier events, so events apply in call order. */
  #enqueue(step: () => Promise<void>): Promise<void> {
    if (this.#returned) {
      return Promise.reject(
        new InvalidAgentResponseError(
          `execute() already returned; task ${this.taskId} takes no more events from it`,
        ),
      );
    }
    // With nothing queued the step starts at once instead of a turn later, unless this turn
    // of the event loop has run long enough: then it waits for the next (other requests first).
    const pause = yieldIfBusy();
    const previous = this.#queued === 0 ? undefined : this.#chain;
    const gate = pause && previous ? previous.then(() => pause) : (pause ?? previous);
    const run = gate ? gate.then(step) : step();
    this.#queued++;
    this.#chain = run.then(this.#stepDone, this.#stepFailed);
    return run;
  }

  readonly #stepDone = (): void => {
    this.#emitted++;
    this.#queued--;
  };

  readonly #stepFailed = (): void => {
    this.#queued--;
  };

  #message(input: MessageInput, inTask = true): Message {
    const message: Message =
      typeof input === 'string'
        ? { messageId: newId(), role: Role.AGENT, parts: [{ text: input }] }
        : { messageId: newId(), role: Role.AGENT, parts: checkParts(input?.parts, 'message') };
    if (typeof input !== 'string') {
      if (input.metadata) message.metadata = input.metadata;
      if (input.extensions) message.extensions = input.extensions;
    }
    message.contextId = this.contextId;
    if (inTask) message.taskId = this.taskId;
    return message;
  }

  #artifact(input: ArtifactInput): Artifact & { artifactId: string } {
    if (input === null || typeof input !== 'object') {
      throw new InvalidAgentResponseError('an artifact must be an object');
    }
    let parts: Part[];
    if (input.parts !== undefined) parts = checkParts(input.parts, 'artifact');
    else if (input.text !== undefined) parts = [{ text: String(input.text) }];
    else if (input.data !== undefined) parts = [{ data: input.data }];
    else throw new InvalidAgentResponseError('an artifact needs parts, text or data');
    const artifactId = input.artifactId ?? newId();
    if (typeof artifactId !== 'string' || artifactId.length === 0) {
      throw new InvalidAgentResponseError('artifactId must be a non-empty string');
    }
    const artifact: Artifact & { artifactId: string } = { artifactId, parts };
    if (input.name !== undefined) artifact.name = input.name;
    if (input.description !== undefined) artifact.description = input.description;
    if (input.metadata) artifact.metadata = input.metadata;
    if (input.extensions) artifact.extensions = input.extensions;
    return artifact;
  }
}

function checkParts(parts: unknown, what: string): Part[] {
  if (!Array.isArray(parts) || parts.length === 0) {
    throw new InvalidAgentResponseError(`an agent ${what} needs at least one part`);
  }
  for (let i = 0; i < parts.length; i++) {
    if (!partValidator.is(parts[i])) {
      throw new InvalidAgentResponseError(
        `${what} part ${i} is not a valid Part (exactly one of text, raw, url, data)`,
      );
    }
  }
  return parts as Part[];
}

/** A short, stack-free description of something thrown. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  if (firstLine) return firstLine.length > 1000 ? `${firstLine.slice(0, 1000)}…` : firstLine;
  return error instanceof Error && error.name && error.name !== 'Error'
    ? `the agent failed (${error.name})`
    : 'the agent failed';
}
