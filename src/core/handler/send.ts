/**
 * SendMessage and SendStreamingMessage: validate the send, de-duplicate it, start the agent;
 * then wait for the task to settle (blocking), or stream its changes.
 */
import { Role } from '../../model/enums.js';
import { newId } from '../../model/ids.js';
import type { SendMessageRequest, SendMessageResponse, StreamResponse } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { checkInputModes } from '../input-modes.js';
import { generationOn, replyTask, resumeGeneration } from '../generation.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import type { Executions } from './executions.js';
import {
  checkHistoryLength,
  invalidParam,
  notFound,
  requirePush,
  requireStreaming,
  shuttingDown,
} from './refusals.js';
import { SendDuplicates, type SendStart } from './send-duplicates.js';
import { startSend, type TaskSubscriber } from './send-start.js';
import { isSettled, SettlementWatch, type Settlements } from './settlement.js';
import type { OpenStreams } from './streams.js';

export class SendOperations {
  /** Undefined when de-duplication is off (`idempotencyTtlMs: 0`). */
  readonly #duplicates: SendDuplicates | undefined;

  constructor(
    private readonly deps: HandlerDependencies,
    private readonly executions: Executions,
    private readonly streams: OpenStreams,
    private readonly settlements: Settlements,
    idempotencyTtlMs: number,
  ) {
    this.#duplicates = idempotencyTtlMs === 0 ? undefined : new SendDuplicates(deps, idempotencyTtlMs);
  }

  async sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse> {
    const returnImmediately = request.configuration?.returnImmediately === true;
    // A blocking send watches its task from before the agent runs: its settling needs no read.
    const watch = returnImmediately ? undefined : new SettlementWatch();
    try {
      const start = await this.#begin(request, ctx, watch);
      const historyLength = request.configuration?.historyLength;
      const scope = scopeOf(ctx);
      let taskId: string;
      if (start.kind === 'duplicate') {
        const outcome = await start.outcome;
        if (outcome.kind === 'message') return { message: outcome.message };
        taskId = outcome.taskId;
      } else {
        const outcome = await start.outcome;
        if (outcome.kind === 'message') return { message: outcome.message };
        const record = outcome.record;
        taskId = record.task.id;
        if (returnImmediately || isSettled(record.task.status.state)) {
          return { task: replyTask(this.deps.generation, ctx, record, historyLength) };
        }
      }
      const record = returnImmediately
        ? await this.deps.manager.get(scope, taskId)
        : await this.settlements.wait(scope, taskId, ctx, watch);
      if (!record) throw notFound(taskId);
      return { task: replyTask(this.deps.generation, ctx, record, historyLength) };
    } finally {
      watch?.close();
    }
  }

  async sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    requireStreaming(this.deps.card());
    const historyLength = request.configuration?.historyLength;
    const stream = this.streams.open(ctx, historyLength);
    try {
      // Subscribed before the agent runs, so no event is missed; events already in the
      // snapshot are skipped by version.
      const start = await this.#begin(request, ctx, stream);
      if (start.kind === 'duplicate') {
        const outcome = await start.outcome;
        if (outcome.kind === 'message') {
          stream.startWithMessage(outcome.message);
          return stream;
        }
        // GEN-5: a reconnecting SendStreamingMessage (the same messageId) resumes where it was cut.
        const resumeAfter = generationOn(this.deps.generation, ctx)
          ? resumeGeneration(ctx.lastEventId, outcome.taskId)
          : undefined;
        await this.streams.attach(stream, scopeOf(ctx), outcome.taskId, true, resumeAfter);
        return stream;
      }
      // Handed to the binding before the agent's first event, so the response starts at once.
      // The first event follows as soon as the task exists (at once for a follow-up) or the
      // agent replied; an error the agent raises before any event is the stream's error (G5).
      start.outcome.then(
        (outcome) => {
          if (outcome.kind === 'message') stream.startWithMessage(outcome.message);
          else stream.start(outcome.record.task, outcome.record.version, true);
        },
        (error: unknown) => stream.fail(error),
      );
      return stream;
    } catch (error) {
      stream.return();
      throw error;
    }
  }

  /**
   * Validates a send, handles duplicates, records the client message and starts the agent.
   * When `stream` (a stream or a settlement watch) is given it is subscribed to the task's
   * topic before the agent runs.
   */
  async #begin(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    stream?: TaskSubscriber,
  ): Promise<SendStart> {
    const deps = this.deps;
    if (deps.closed) throw shuttingDown();
    const message = request.message;
    if (message.role !== Role.USER) {
      throw invalidParam(
        'message.role',
        'must be ROLE_USER: a client sends user messages (ROLE_AGENT is for what the agent says)',
      );
    }
    const configuration = request.configuration;
    const card = deps.card();
    if (configuration?.taskPushNotificationConfig) requirePush(card);
    checkHistoryLength(configuration?.historyLength, 'configuration.historyLength');
    checkInputModes(card, message);
    const taskId = message.taskId ? message.taskId : newId();
    const duplicates = this.#duplicates;
    if (!duplicates) {
      const sink = await startSend(deps, this.executions, request, ctx, taskId, stream);
      return { kind: 'run', sink, outcome: sink.outcome };
    }
    return duplicates.begin(request, ctx, taskId, (lease) =>
      startSend(deps, this.executions, request, ctx, taskId, stream, lease),
    );
  }
}
