/**
 * The {@link TaskEventSink} bound to one execution of an agent. It turns the agent's calls
 * into TaskManager changes, in call order, and refuses illegal ones with
 * InvalidAgentResponseError before anything is written.
 */
import { A2AError, InvalidAgentResponseError, UnavailableError } from '../errors/a2a-error.js';
import { isTerminalState, TaskState } from '../model/enums.js';
import type { Artifact, Message } from '../model/schema.js';
import { agentArtifact, agentMessage } from './agent-input.js';
import { checkAgentMetadata } from './agent-output.js';
import type { ArtifactChunkOptions, ArtifactInput, MessageInput, TaskEventSink } from './executor.js';
import { IllegalTaskEventError } from './task-changes.js';
import { endChange, errorText, isActive, writeFailed } from './execution-end.js';
import { stagedWriteOf } from './staged-changes.js';
import type { TaskManager } from './task-manager.js';
import { snapshotRecord } from './task-snapshot.js';
import type { StoredTask, TaskScope } from './stores/task-store.js';
import { yieldIfBusy } from './time-slice.js';

/**
 * The task needs no change at the end of an execution (already terminal, or waiting for the
 * client): thrown out of the update to skip the write. One shared instance, since most
 * executions end this way and capturing a stack per execution is costly.
 */
const NOTHING_TO_FINISH = new Error('nothing to finish');

/** The answer to a caller whose agent had not answered when the server stopped. */
export class ServerStoppedWaiting extends UnavailableError {
  constructor() {
    super('the server is stopping and the agent had not answered yet; send the message again');
  }
}

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
  /**
   * The latest record this execution knows (its last write, or the task it continues), which
   * the manager tries as the current task and extends in place; a stale one loses the
   * version check and the change is retried on the stored task.
   */
  #last: StoredTask | undefined;
  /** Set as soon as execute() settled: later calls are refused at once. */
  #returned = false;
  /**
   * Why one of this execution's staged events was not written (the store failed): its later
   * events are refused, and its end records the task as FAILED.
   */
  #writeFailure: unknown;
  /** The task's first (staged) write failed: the store has no such task. */
  #neverStored = false;
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
        record: snapshotRecord(init.existing),
      });
    }
  }

  reply(message: MessageInput): Promise<void> {
    return this.#enqueue(async () => {
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
      checkAgentMetadata(metadata, 'status metadata');
      if (this.#phase === 'fresh') {
        await this.#create(state, msg, undefined);
        return;
      }
      this.#last = this.#track(
        await this.#init.manager.setStatus(
          this.#init.scope,
          this.taskId,
          state,
          msg,
          metadata,
          this.#last,
          true,
        ),
      );
    });
  }

  artifact(artifact: ArtifactInput, options: ArtifactChunkOptions = {}): Promise<void> {
    return this.#enqueue(async () => {
      this.#checkOpen();
      const built = agentArtifact(artifact);
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
        this.#last = this.#track(
          await this.#init.manager.addArtifact(this.#init.scope, this.taskId, built, {
            ...(options.append ? { append: true } : {}),
            ...(options.lastChunk ? { lastChunk: true } : {}),
            latest: this.#last,
            staged: true,
          }),
        );
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
          : agentArtifact(typeof artifact === 'string' ? { text: artifact } : artifact);
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
      if (built) {
        this.#last = this.#track(
          await manager.addArtifact(scope, this.taskId, built, { latest: this.#last, staged: true }),
        );
      }
      this.#last = this.#track(
        await manager.setStatus(scope, this.taskId, TaskState.COMPLETED, msg, undefined, this.#last, true),
      );
    });
  }

  requireInput(question?: MessageInput): Promise<void> {
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

  /** The scope of the task this execution writes. */
  get scope(): TaskScope {
    return this.#init.scope;
  }

  /**
   * The server is closing: a caller still waiting for this execution's first event is
   * answered with UnavailableError now (the agent may never stop). Its claim stays: a retry
   * finds the task, if the agent still makes one, or runs again once the lease ran out.
   */
  stopWaiting(): void {
    if (this.#phase === 'fresh') this.#rejectOutcome(new ServerStoppedWaiting());
  }

  async written(): Promise<void> {
    await this.#settleWrites();
    if (this.#writeFailure !== undefined) throw writeFailed(this.#writeFailure);
  }

  /**
   * Refuses further events without applying the return rules (used after a cancel hook), and
   * resolves once the accepted ones are written (or failed to be): the caller reads the store next.
   */
  async seal(): Promise<void> {
    this.#returned = true;
    await this.#settleWrites();
    this.#phase = 'closed';
  }

  /** Waits for the accepted events' steps and the write of the last one; never rejects. */
  async #settleWrites(): Promise<void> {
    await this.#chain;
    const written = this.#last && stagedWriteOf(this.#last);
    if (written) await written.then(undefined, this.#onWriteFailed);
  }

  /**
   * Ends the execution after execute() settled (`error` when it threw). Applies the return
   * rules of AgentExecutor.execute once, then refuses further events. An A2AError thrown
   * before any event rejects {@link ExecutionSink.outcome}: the client gets it instead of a
   * task. `serverStopped`: the server's close() aborted this execution before it settled, so
   * its end is no answer of the agent: an unfinished (SUBMITTED or WORKING) task becomes
   * FAILED saying the server stopped, an interrupted one keeps waiting for the client, and a
   * request that has no task yet gets UnavailableError (nothing is created). `handBack`
   * (with `serverStopped`, for a resumable executor): an unfinished task is left as it is, to
   * be resumed by the next start. Resolves true when it left an unfinished task that way.
   */
  async finish(error: unknown, threw: boolean, serverStopped = false, handBack = false): Promise<boolean> {
    this.#returned = true;
    // The end is decided on what was written: wait for the accepted events to be.
    await this.#settleWrites();
    const phase = this.#phase;
    this.#phase = 'closed';
    if (phase === 'replied') return false;
    if (this.#neverStored) {
      // No task to end: its first write failed (its caller was told why). Thrown so onError
      // hears the store's reason, not that the task does not exist; the kept lease is
      // dropped at the next heartbeat, which finds no task to fail.
      throw writeFailed(this.#writeFailure);
    }
    if (this.#writeFailure !== undefined) {
      // The agent's last events are not in the store: the task ends FAILED, saying why.
      error = new Error(`the server could not record the agent's events (${errorText(this.#writeFailure)})`);
      threw = true;
    }
    if (phase === 'fresh') {
      if (serverStopped) {
        this.#rejectOutcome(
          new UnavailableError('the server stopped before the agent answered; send the message again'),
        );
        return false;
      }
      if (threw && error instanceof A2AError && !(error instanceof InvalidAgentResponseError)) {
        this.#rejectOutcome(error);
        return false;
      }
      const state = threw ? TaskState.FAILED : TaskState.COMPLETED;
      try {
        await this.#create(state, threw ? this.#message(errorText(error)) : undefined, undefined);
      } catch (createError) {
        // Whoever waits for this request's first event must not wait forever.
        this.#rejectOutcome(createError);
        throw createError;
      }
      return false;
    }
    // The handler runs one execution of a task at a time, so since this execution's last
    // event only a cancel or an expired wait (both terminal) can have changed the task. The
    // end is decided on the stored task inside its serialized section: applied exactly once.
    // The agent's own last event ended the task: a terminal task never changes, so there is
    // nothing to decide and no need to read it again (the common end of every task).
    const lastState = this.#writeFailure === undefined ? this.#last?.task.status.state : undefined;
    if (lastState !== undefined && isTerminalState(lastState)) return false;
    const { manager, scope } = this.#init;
    let untouched: StoredTask | undefined;
    try {
      this.#last = await manager.update(scope, this.taskId, (current) => {
        const change =
          serverStopped && handBack && isActive(current.task.status.state)
            ? undefined
            : endChange(current.task, error, threw, serverStopped, (text) => this.#message(text));
        if (!change) {
          untouched = current;
          throw NOTHING_TO_FINISH;
        }
        return change;
      });
    } catch (finishError) {
      if (finishError !== NOTHING_TO_FINISH) throw finishError;
      const state = untouched?.task.status.state;
      if (state === TaskState.AUTH_REQUIRED) {
        await manager.publishExecutionEnded(scope, untouched!);
      }
      return serverStopped && handBack && state !== undefined && isActive(state);
    }
    return false;
  }

  async #create(
    state: TaskState,
    statusMessage: Message | undefined,
    artifacts: Artifact[] | undefined,
  ): Promise<void> {
    const { manager, scope, clientMessage, requestMetadata } = this.#init;
    const record = await manager.create(
      scope,
      {
        id: this.taskId,
        contextId: this.contextId,
        state,
        history: [clientMessage],
        ...(statusMessage ? { statusMessage } : {}),
        ...(artifacts ? { artifacts } : {}),
        ...(requestMetadata ? { metadata: requestMetadata } : {}),
      },
      true,
    );
    this.#phase = 'task';
    this.#last = record;
    // A snapshot: this execution's next events extend the stored task's arrays in place.
    const outcome: ExecutionOutcome = { kind: 'task', record: snapshotRecord(record) };
    const written = stagedWriteOf(record);
    if (!written) this.#resolveOutcome(outcome);
    else {
      // The client hears of the task only once it is written.
      written.then(
        () => this.#resolveOutcome(outcome),
        (error: unknown) => {
          this.#neverStored = true;
          this.#onWriteFailed(error);
          this.#rejectOutcome(error);
        },
      );
    }
  }

  /** Watches a staged event's write: a failure refuses the execution's later events. */
  #track(record: StoredTask): StoredTask {
    stagedWriteOf(record)?.then(undefined, this.#onWriteFailed);
    return record;
  }

  readonly #onWriteFailed = (error: unknown): void => {
    this.#writeFailure ??= error;
  };

  #checkOpen(): void {
    if (this.#writeFailure !== undefined) throw writeFailed(this.#writeFailure);
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
    this.#chain = run.then(this.#stepSettled, this.#stepSettled);
    return run;
  }

  readonly #stepSettled = (): void => {
    this.#queued--;
  };

  #message(input: MessageInput, inTask = true): Message {
    return agentMessage(input, this.contextId, inTask ? this.taskId : undefined);
  }
}
