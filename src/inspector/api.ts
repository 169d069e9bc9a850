/**
 * The inspector's JSON API: connect, unary calls, streams (as SSE to the page), the wire log,
 * the push receivers, and the live feed. Each handler gets the parsed body and answers JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { A2AClient, StreamEvent } from '../client/client.js';
import { statusOf } from '../client/client.js';
import type {
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../model/schema.js';
import type { ConnectSettings, FeedItem, StreamItem, WireSummary } from './api-types.js';
import { describeError } from './errors.js';
import { restMethodOf } from './wire-check.js';
import { Session } from './session.js';
import type { WireExchange, WireLog } from './wire.js';
import type { PushInbox } from './push.js';
import { agentOriginsOf } from '../client/push-signature.js';

const MAX_SESSIONS = 16;
/** Events a stream may deliver to the page before the inspector stops it. */
const MAX_STREAM_EVENTS = 100_000;

/** What the API handlers share. */
export interface ApiContext {
  log: WireLog;
  inbox: PushInbox;
  sessions: Map<string, Session>;
  /** The inspector's own base URL (for push receivers). */
  baseUrl: () => string;
}

type Json = Record<string, unknown>;

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
}

function sessionOf(ctx: ApiContext, body: Json): Session {
  const session = ctx.sessions.get(String(body.session ?? ''));
  if (!session) throw new Error('unknown session: connect to an agent first');
  return session;
}

/** `POST /api/connect`. */
export async function connect(ctx: ApiContext, body: Json): Promise<unknown> {
  const settings = body as unknown as ConnectSettings;
  if (typeof settings.url !== 'string' || !settings.url.trim()) throw new Error('give the agent URL');
  // The page's previous connection ends with the new one: its streams stop, its sockets close.
  const previous = ctx.sessions.get(String(body.replaces ?? ''));
  if (previous) {
    ctx.sessions.delete(previous.id);
    void previous.close();
  }
  const session = new Session(randomBytes(9).toString('base64url'), settings, ctx.log);
  ctx.sessions.set(session.id, session);
  while (ctx.sessions.size > MAX_SESSIONS) {
    const [oldest, s] = ctx.sessions.entries().next().value as [string, Session];
    ctx.sessions.delete(oldest);
    void s.close();
  }
  return session.connect();
}

/** Runs one unary operation. */
async function runCall(client: A2AClient, method: string, r: Json): Promise<unknown> {
  const id = String(r.id ?? '');
  switch (method) {
    case 'SendMessage':
      return client.sendMessage(r as unknown as SendMessageRequest);
    case 'GetTask':
      return client.getTask(
        id,
        typeof r.historyLength === 'number' ? { historyLength: r.historyLength } : {},
      );
    case 'ListTasks':
      return client.listTasks(r as ListTasksRequest);
    case 'CancelTask':
      return client.cancelTask(id);
    case 'CreateTaskPushNotificationConfig':
      return client.createTaskPushNotificationConfig(r as unknown as TaskPushNotificationConfig);
    case 'GetTaskPushNotificationConfig':
      return client.getTaskPushNotificationConfig(String(r.taskId ?? ''), id);
    case 'ListTaskPushNotificationConfigs': {
      const { taskId, ...page } = r as unknown as ListTaskPushNotificationConfigsRequest;
      return client.listTaskPushNotificationConfigs(taskId, page);
    }
    case 'DeleteTaskPushNotificationConfig':
      await client.deleteTaskPushNotificationConfig(String(r.taskId ?? ''), id);
      return {};
    case 'GetExtendedAgentCard':
      return client.getExtendedAgentCard();
    default:
      throw new Error(`not a unary A2A operation: ${method}`);
  }
}

/** `POST /api/call`: `{ session, method, request }` → `{ result }` or `{ error }`. */
export async function call(ctx: ApiContext, body: Json): Promise<unknown> {
  const client = sessionOf(ctx, body).requireClient();
  try {
    return { result: await runCall(client, String(body.method), (body.request ?? {}) as Json) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Opens an SSE answer with a keep-alive comment every 15 s; returns the stop function. */
export function openSse(res: ServerResponse): () => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  res.write(': inspector\n\n');
  const timer = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  return () => clearInterval(timer);
}

function itemOf(event: StreamEvent, index: number, wireSeq: number | undefined): StreamItem {
  return {
    index,
    at: Date.now(),
    kind: event.kind,
    ...(statusOf(event)?.state ? { state: statusOf(event)?.state as string } : {}),
    event: event as unknown as Record<string, unknown>,
    ...(wireSeq !== undefined ? { wireSeq } : {}),
  };
}

/**
 * `POST /api/stream`: `{ session, method: SendStreamingMessage | SubscribeToTask, request }`,
 * answered as SSE: `item` per event, then `end`, or `error` when the stream fails. The page
 * closing the connection stops the stream.
 */
export async function stream(
  ctx: ApiContext,
  body: Json,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const session = sessionOf(ctx, body);
  const client = session.requireClient();
  const request = (body.request ?? {}) as Json;
  const method = String(body.method);
  const abort = new AbortController();
  session.streams.add(abort);
  res.on('close', () => abort.abort());
  const stop = openSse(res);
  const before = ctx.log.list().at(-1)?.seq ?? 0;
  const wireSeq = (): number | undefined =>
    ctx.log
      .list(before, session.id)
      .find((e) => (e.method ?? restMethodOf(e.request.method, e.request.url)) === method)?.seq;
  try {
    const events =
      method === 'SubscribeToTask'
        ? client.subscribeToTask(String(request.id ?? ''), { signal: abort.signal })
        : method === 'SendStreamingMessage'
          ? client.sendStreamingMessage(request as unknown as SendMessageRequest, { signal: abort.signal })
          : undefined;
    if (!events) throw new Error(`not a streaming A2A operation: ${method}`);
    let index = 0;
    for await (const event of events) {
      sse(res, 'item', itemOf(event, ++index, wireSeq()));
      if (index >= MAX_STREAM_EVENTS) {
        sse(res, 'error', { type: 'InspectorLimit', message: `stopped after ${MAX_STREAM_EVENTS} events` });
        break;
      }
    }
    sse(res, 'end', { events: index, wireSeq: wireSeq() });
  } catch (error) {
    if (!abort.signal.aborted) sse(res, 'error', { ...describeError(error), wireSeq: wireSeq() });
  } finally {
    stop();
    session.streams.delete(abort);
    res.end();
  }
}

/** The summary of an exchange for lists and the feed. */
export function summaryOf(e: WireExchange): WireSummary {
  return {
    seq: e.seq,
    session: e.session,
    binding: e.binding,
    ...(e.method ? { method: e.method } : {}),
    url: e.request.url,
    httpMethod: e.request.method,
    ...(e.response ? { status: e.response.status } : {}),
    events: e.events.length + e.droppedEvents,
    problems: e.problems.length,
    ...(e.error ? { error: e.error } : {}),
    startedAt: e.startedAt,
    ...(e.endedAt !== undefined ? { endedAt: e.endedAt } : {}),
  };
}

/** `GET /api/feed`: wire changes (coalesced every 100 ms) and push deliveries, as SSE. */
export function feed(ctx: ApiContext, res: ServerResponse): void {
  const stop = openSse(res);
  const dirty = new Map<number, WireExchange>();
  const send = (item: FeedItem) => sse(res, 'feed', item);
  const unsubscribeWire = ctx.log.subscribe((e) => dirty.set(e.seq, e));
  const unsubscribePush = ctx.inbox.subscribe((push) => send({ type: 'push', push }));
  const timer = setInterval(() => {
    for (const e of dirty.values()) send({ type: 'wire', wire: summaryOf(e) });
    dirty.clear();
  }, 100);
  res.on('close', () => {
    stop();
    clearInterval(timer);
    unsubscribeWire();
    unsubscribePush();
  });
}

/** `POST /api/push/receivers`: `{ session, taskId }` → a receiver and the config stored on the agent. */
export async function createReceiver(ctx: ApiContext, body: Json): Promise<unknown> {
  const session = sessionOf(ctx, body);
  const client = session.requireClient();
  const taskId = String(body.taskId ?? '');
  if (!taskId) throw new Error('give the task id');
  const receiver = ctx.inbox.create(
    ctx.baseUrl(),
    taskId,
    client.card,
    agentOriginsOf(client.card, session.card?.url),
  );
  try {
    const config = await client.createTaskPushNotificationConfig({
      taskId,
      id: receiver.configId,
      url: receiver.url,
      token: receiver.token,
    });
    const { token: _secret, verifier: _v, noVerifier: _n, ...info } = receiver;
    return { receiver: info, config };
  } catch (error) {
    ctx.inbox.remove(receiver.id);
    return { error: describeError(error) };
  }
}
