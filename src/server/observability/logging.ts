/**
 * Structured logs with pino: one line per request from a {@link ServerInterceptor}, agent
 * failures with their stack, task state changes (debug), push delivery outcomes. Everything
 * logged goes through redact.ts first.
 */
import type * as Pino from 'pino';
import type { Logger } from 'pino';
import { requireNode } from '../../core/node-modules.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { ServerInterceptor } from '../../core/handler/interceptor.js';
import type { StreamResponse } from '../../model/schema.js';
import {
  bindingOf,
  errorCodeOf,
  eventFacts,
  requestFacts,
  resultFacts,
  watchStream,
  type TaskFacts,
} from './call-facts.js';
import { errorField, redactLogFields, safeUrl, scrubText } from './redact.js';
import { prettyStream } from './pretty.js';
import { BufferedLogDestination } from './log-destination.js';

export type { Logger } from 'pino';

/** Log settings of `a2a serve` (and anyone who wants a2a-kit's default logger). */
export interface LoggerOptions {
  /** pino level (`trace`, `debug`, `info`, `warn`, `error`, `fatal`, `silent`). @default 'info' */
  level?: string;
  /** `pretty`: one human-readable line per entry; `json`: pino's JSON lines. @default 'json' */
  format?: 'pretty' | 'json';
  /** Where lines go. @default fd 2 (stderr), written in 16 KiB pieces at least every 100 ms */
  destination?: NodeJS.WritableStream;
}

/** A pino logger with a2a-kit's redaction paths, JSON or pretty. */
export function createLogger(options: LoggerOptions = {}): Logger {
  // pino on use: loading it reads the host name, which Deno asks a permission for.
  const { pino } = requireNode<typeof Pino>('pino');
  const stream =
    options.format === 'pretty'
      ? prettyStream(options.destination ?? process.stderr)
      : (options.destination ?? new BufferedLogDestination());
  return pino(
    {
      level: options.level ?? 'info',
      base: { name: 'a2a-kit' },
      formatters: { log: redactLogFields },
    },
    stream,
  );
}

/** Round to 0.01 ms: log lines stay short. */
function ms(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** The fields of a request line (set one by one: spreading each optional field cost more). */
function line(
  method: string,
  binding: string | undefined,
  tenant: string,
  principal: string,
  facts: TaskFacts,
  started: number,
  secrets: ReadonlySet<string> | undefined,
): Record<string, unknown> {
  const fields: Record<string, unknown> = { op: method };
  if (binding) fields.binding = binding;
  if (tenant) fields.tenant = scrubText(tenant, secrets);
  fields.principal = scrubText(principal, secrets);
  if (facts.taskId) fields.taskId = scrubText(facts.taskId, secrets);
  if (facts.contextId) fields.contextId = scrubText(facts.contextId, secrets);
  if (facts.status) fields.status = facts.status;
  fields.ms = ms(started);
  return fields;
}

/**
 * Logs one line per operation at `info` (`msg: "request"`): operation, binding, tenant,
 * principal id, task and context ids, resulting task state (or error code), duration; for
 * streams, when the stream ends, with the number of events. Protocol errors are logged at
 * `warn` with their code; anything else at `error` with the scrubbed stack.
 */
export function loggingInterceptor(logger: Logger, secrets?: ReadonlySet<string>): ServerInterceptor {
  // Not an async function: the request's own promise is chained, not wrapped in another.
  return (next) => (call) => {
    // Refusals log at warn: at a higher level only failures remain, which need no timing.
    if (!logger.isLevelEnabled('warn')) {
      return next(call).catch((error: unknown) => {
        if (errorCodeOf(error) === 'Internal') {
          logger.error({ op: call.method, err: errorField(error, secrets) }, 'request failed');
        }
        throw error;
      });
    }
    const info = logger.isLevelEnabled('info');
    const started = performance.now();
    const { ctx, method } = call;
    const facts = requestFacts(call);
    const fail = (error: unknown): void => {
      const code = errorCodeOf(error);
      const fields = {
        ...line(method, bindingOf(ctx), ctx.tenant, ctx.principal.id, facts, started, secrets),
        code,
      };
      if (code === 'Internal') logger.error({ ...fields, err: errorField(error, secrets) }, 'request failed');
      else logger.warn({ ...fields, error: scrubText((error as Error).message, secrets) }, 'request refused');
    };
    /** The request line of an answered call (a stream's once it ends); the result unchanged. */
    const logged = (result: unknown): unknown => {
      if (!info) return result;
      if (!call.streaming) {
        logger.info(
          line(
            method,
            bindingOf(ctx),
            ctx.tenant,
            ctx.principal.id,
            resultFacts(method, result, facts),
            started,
            secrets,
          ),
          'request',
        );
        return result;
      }
      let events = 0;
      return watchStream(
        result as AsyncIterable<StreamResponse>,
        (event) => {
          events++;
          eventFacts(event, facts);
        },
        (error, failed) => {
          if (failed) fail(error);
          else {
            logger.info(
              {
                ...line(method, bindingOf(ctx), ctx.tenant, ctx.principal.id, facts, started, secrets),
                events,
              },
              'request',
            );
          }
        },
      );
    };
    let answer: Promise<unknown>;
    try {
      answer = next(call);
    } catch (error) {
      fail(error);
      return Promise.reject(error);
    }
    return answer.then(logged, (error: unknown) => {
      fail(error);
      throw error;
    });
  };
}

/** Logs an agent's failure (execute() threw) with its scrubbed stack, at `error` (an A2AError: `warn`, no stack). */
export function logAgentFailure(
  logger: Logger,
  facts: { taskId: string; contextId: string; tenant: string },
  error: unknown,
  secrets?: ReadonlySet<string>,
): void {
  const fields = {
    taskId: facts.taskId,
    contextId: facts.contextId,
    ...(facts.tenant ? { tenant: scrubText(facts.tenant, secrets) } : {}),
  };
  // An A2AError is the agent's deliberate answer (returned to the client as that error).
  if (error instanceof A2AError) {
    logger.warn({ ...fields, code: error.code, error: scrubText(error.message, secrets) }, 'agent refused');
  } else logger.error({ ...fields, err: errorField(error, secrets) }, 'agent failed');
}

/** One push delivery attempt, as the push worker reports it. */
export interface PushDeliveryOutcome {
  taskId: string;
  /** The webhook URL (logged without query, fragment or user info). */
  url: string;
  /** `delivered`, `retrying` or `failed` (gave up). */
  outcome: 'delivered' | 'retrying' | 'failed';
  /** 1 for the first attempt. */
  attempt: number;
  /** The webhook's HTTP status, when it answered. */
  httpStatus?: number;
  /** What went wrong (scrubbed). */
  error?: unknown;
  /** How long the attempt took. */
  durationMs?: number;
}

/**
 * The logger the push worker uses: `log(outcome)` writes one line per delivery attempt
 * (`msg: "push delivery"`; delivered at `debug`, retrying at `warn`, failed at `error`).
 * Tokens and credentials of the push config are never passed here, and the URL is cut to
 * origin and path.
 */
export interface PushLogger {
  /** Writes one line for one delivery attempt. */
  log(outcome: PushDeliveryOutcome): void;
  /** False when a line for `outcome` would not be written (its level is off): skip the work. */
  wants?(outcome: PushDeliveryOutcome['outcome']): boolean;
}

/** A {@link PushLogger} over `logger` (a no-op without one). */
export function pushLogger(logger: Logger | undefined, secrets?: ReadonlySet<string>): PushLogger {
  if (!logger) return { log: () => undefined, wants: () => false };
  const child = logger.child({ component: 'push' });
  const levelOf = (outcome: PushDeliveryOutcome['outcome']) =>
    outcome === 'delivered' ? 'debug' : outcome === 'retrying' ? 'warn' : 'error';
  return {
    wants: (outcome) => child.isLevelEnabled(levelOf(outcome)),
    log(o) {
      const level = levelOf(o.outcome);
      if (!child.isLevelEnabled(level)) return;
      child[level](
        {
          taskId: scrubText(o.taskId, secrets),
          url: safeUrl(o.url, secrets),
          outcome: o.outcome,
          attempt: o.attempt,
          ...(o.httpStatus !== undefined ? { httpStatus: o.httpStatus } : {}),
          ...(o.durationMs !== undefined ? { ms: Math.round(o.durationMs * 100) / 100 } : {}),
          ...(o.error !== undefined ? { err: errorField(o.error, secrets) } : {}),
        },
        'push delivery',
      );
    },
  };
}
