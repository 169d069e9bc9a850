/**
 * An AgentExecutor decorator: the agent's execution as an INTERNAL child span
 * (`a2a.agent.execute`, active while the agent runs, so its own calls to other agents continue
 * the trace), the running-executions gauge, and the failure log line with the stack. What the
 * client sees of a failure is unchanged: the handler turns it into the task's status message.
 */
import { SpanKind, context, trace, type Tracer } from '@opentelemetry/api';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../core/executor.js';
import type { Logger } from 'pino';
import { logAgentFailure } from './logging.js';
import type { ServerInstruments } from './metrics.js';
import { a2aTracer, failSpan, liveness } from './tracing.js';

/** Options of {@link observeExecutor}. */
export interface ObserveExecutorOptions {
  logger?: Logger | undefined;
  instruments: ServerInstruments;
  /**
   * Whether the instruments record anything (a MeterProvider was installed before the server
   * was made). @default true
   */
  metricsLive?: boolean;
  tracer?: Tracer;
  secrets?: ReadonlySet<string>;
}

/** `executor` with tracing, metrics and failure logging around `execute` and `cancel`. */
export function observeExecutor(executor: AgentExecutor, options: ObserveExecutorOptions): AgentExecutor {
  const tracer = options.tracer ?? a2aTracer();
  const live = liveness(options.tracer);
  const { logger, instruments, secrets } = options;
  const untraced = async (
    name: 'execute' | 'cancel',
    ctx: RequestContext,
    work: () => Promise<void> | void,
  ): Promise<void> => {
    if (name === 'execute') instruments.runningExecutions.add(1);
    try {
      await work();
      if (name === 'execute') instruments.executions.add(1, { 'a2a.outcome': 'ok' });
    } catch (error) {
      if (name === 'execute') instruments.executions.add(1, { 'a2a.outcome': 'error' });
      if (logger) logAgentFailure(logger, ctx, error, secrets);
      throw error;
    } finally {
      if (name === 'execute') instruments.runningExecutions.add(-1);
    }
  };
  const run = async (
    name: 'execute' | 'cancel',
    ctx: RequestContext,
    work: () => Promise<void> | void,
  ): Promise<void> => {
    if (!live()) return untraced(name, ctx, work);
    const active = context.active();
    // Below a span that records nothing (not sampled) the agent's span would record nothing either.
    if (trace.getSpan(active)?.isRecording() === false) return untraced(name, ctx, work);
    const span = tracer.startSpan(
      `a2a.agent.${name}`,
      { kind: SpanKind.INTERNAL, attributes: { 'a2a.task.id': ctx.taskId, 'a2a.context.id': ctx.contextId } },
      active,
    );
    const recording = span.isRecording();
    if (name === 'execute') instruments.runningExecutions.add(1);
    try {
      await (recording ? context.with(trace.setSpan(active, span), work) : work());
      if (name === 'execute') instruments.executions.add(1, { 'a2a.outcome': 'ok' });
    } catch (error) {
      if (name === 'execute') instruments.executions.add(1, { 'a2a.outcome': 'error' });
      failSpan(span, error);
      if (logger) logAgentFailure(logger, ctx, error, secrets);
      throw error;
    } finally {
      if (name === 'execute') instruments.runningExecutions.add(-1);
      span.end();
    }
  };
  // While no trace is live and no metric records, only a failure's log line is left to do: the
  // agent is called straight (with a catch for that line), without the async wrapper's promise
  // hops and the no-op instrument calls.
  const direct = options.metricsLive === false;
  const straight = (ctx: RequestContext, work: () => Promise<void>): Promise<void> =>
    logger === undefined ? work() : logFailures(logger, ctx, work, secrets);
  const observed: AgentExecutor = {
    execute: (ctx: RequestContext, sink: TaskEventSink) =>
      direct && !live()
        ? straight(ctx, () => executor.execute(ctx, sink))
        : run('execute', ctx, () => executor.execute(ctx, sink)),
    ...(executor.resumable ? { resumable: true } : {}),
  };
  const cancel = executor.cancel;
  if (cancel) {
    observed.cancel = (ctx: RequestContext, sink: TaskEventSink) =>
      direct && !live()
        ? straight(ctx, () => cancel.call(executor, ctx, sink))
        : run('cancel', ctx, () => cancel.call(executor, ctx, sink));
  }
  return observed;
}

/** `work()`, its failure (thrown or rejected) logged and passed on unchanged. */
function logFailures(
  logger: Logger,
  ctx: RequestContext,
  work: () => Promise<void>,
  secrets: ReadonlySet<string> | undefined,
): Promise<void> {
  const fail = (error: unknown): never => {
    logAgentFailure(logger, ctx, error, secrets);
    throw error;
  };
  try {
    // Promise.resolve hands a native promise back as it is; a plain JS agent may return nothing.
    return Promise.resolve(work()).catch(fail);
  } catch (error) {
    // An executor that throws before its first await (not an async function).
    return Promise.reject(error).catch(fail);
  }
}
