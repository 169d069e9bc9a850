/**
 * A webhook endpoint for push notifications (CLI-PUSH-1..4, 7, 8): checks the token or bearer
 * credentials it was given, checks the task is one the app expects, drops stale events and
 * replays, answers 2xx at once, then hands the typed event to the app.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { StreamResponse } from '../model/schema.js';
import { expectShape } from '../bindings/http/decode.js';
import { hasKnownMember, eventTaskId } from '../bindings/stream-guard.js';
import { statusOf, toStreamEvent, toStreamResponse, type StreamEvent } from './client.js';
import { createPushSignatureVerifier, type PushSignatureOptions } from './push-signature.js';

/** Options of {@link createPushReceiver}. */
export interface PushReceiverOptions {
  /**
   * Verify the agent's signature on every notification (SRV-PUSH-7): the JWT in
   * `X-A2A-Notification-Signature` against the agent's push JWKS (`pushJwksUrlOf(card)`),
   * for this webhook's URL, over the exact body. A notification failing it gets 401.
   */
  signature?: PushSignatureOptions;
  /** Expected `X-A2A-Notification-Token` (the config's `token`). */
  token?: string;
  /** Expected `Authorization: Bearer <value>` (the config's `authentication`). */
  bearer?: string;
  /** True when the task id is one this app created or expects (CLI-PUSH-3). */
  expectTask: (taskId: string) => boolean | Promise<boolean>;
  /** Receives each accepted event, after the 2xx answer was sent. */
  onEvent: (event: StreamEvent, taskId: string, info: PushNotificationInfo) => void | Promise<void>;
  /** Receives failures of `onEvent`. */
  onError?: (error: unknown) => void;
  /** Hears each refused notification (the HTTP status answered and why), for logging. */
  onReject?: (rejection: { status: number; reason: string }) => void;
  /** Largest accepted body, bytes. @default 1048576 */
  bodyLimit?: number;
  /**
   * Duplicate suppression (CLI-PUSH-4, CLI-PUSH-7): a notification with the same task id and
   * the same `X-A2A-Notification-Id` (or, when the sender names none, the same content) as one
   * accepted within `windowMs` is answered 200 without calling `onEvent` again. At most `maxEntries` events are remembered (the oldest are forgotten first).
   * `false` turns it off, except for signed notifications: with `signature`, a token's `jti`
   * is always remembered for as long as the token is valid, whatever the id header says, so a
   * replay (with or without `X-A2A-Notification-Id`) is answered 200 and not handed on.
   * @default { windowMs: 600000, maxEntries: 10000 }
   */
  dedupe?: { windowMs?: number; maxEntries?: number } | false;
  /**
   * Rejects (HTTP 400, `onEvent` not called) an event whose status timestamp is older than
   * this many ms: a delayed or replayed notification (CLI-PUSH-7). Events without a status
   * timestamp (artifact updates, messages, statuses lacking one) are not checked.
   * @default no staleness check
   */
  maxAgeMs?: number;
}

/** What the receiver knows about one accepted notification besides its event. */
export interface PushNotificationInfo {
  /** `X-A2A-Notification-Id`, when the sender gave one (the same on retries). */
  notificationId?: string;
  /** `verified`: its signature was checked and is good; `unchecked`: no `signature` option. */
  signature: 'verified' | 'unchecked';
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One webhook request as {@link createPushHandler} reads it, whatever the runtime. */
export interface PushHttpRequest {
  readonly method: string;
  /** First value of a header (lowercase name). */
  header(name: string): string | undefined;
  /** The whole body; rejects once it passes `limit` bytes. */
  readBody(limit: number): Promise<Buffer>;
}

/** The answer to one webhook request. */
export interface PushHttpReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What checking one request gave: the answer, and the accepted event to hand on after it. */
interface Checked {
  reply: PushHttpReply;
  accepted?: { event: StreamEvent; taskId: string; info: PushNotificationInfo };
}

const reply = (status: number, message?: string, headers: Record<string, string> = {}): Checked => ({
  reply: {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: message ? JSON.stringify({ error: { code: status, message } }) : '{}',
  },
});

/** The checks of a push webhook, shared by the node and the runtime-neutral handlers. */
function pushChecker(options: PushReceiverOptions): (req: PushHttpRequest) => Promise<Checked> {
  if (options.token === undefined && options.bearer === undefined && options.signature === undefined) {
    throw new Error(
      'createPushReceiver: configure a token, bearer credentials or signature verification (CLI-PUSH-2)',
    );
  }
  const verify = options.signature ? createPushSignatureVerifier(options.signature) : undefined;
  const needsSecret = options.token !== undefined || options.bearer !== undefined;
  const limit = options.bodyLimit ?? 1024 * 1024;
  const dedupe = options.dedupe === false ? undefined : (options.dedupe ?? {});
  const seen = dedupe ? new RecentEvents(dedupe) : undefined;
  // A signed token verifies for maxTokenAge (+ clock tolerance either side) after its iat: its
  // jti is remembered at least that long, so a replay is caught while it could still verify.
  const tokenLifeMs =
    ((options.signature?.maxTokenAgeS ?? 300) + 2 * (options.signature?.clockToleranceS ?? 30)) * 1000;
  const seenJti =
    verify && (!dedupe || (dedupe.windowMs ?? 600_000) < tokenLifeMs)
      ? new RecentEvents({ windowMs: tokenLifeMs, maxEntries: dedupe?.maxEntries ?? 10_000 })
      : undefined;
  const refuse = (status: number, message: string, headers?: Record<string, string>): Checked => {
    options.onReject?.({ status, reason: message });
    return reply(status, message, headers);
  };
  return async (req) => {
    if (req.method !== 'POST') return refuse(405, 'use POST', { allow: 'POST' });
    const token = req.header('x-a2a-notification-token');
    const auth = req.header('authorization') ?? '';
    const tokenOk = options.token !== undefined && typeof token === 'string' && same(token, options.token);
    const bearerOk =
      options.bearer !== undefined && /^bearer /i.test(auth) && same(auth.slice(7).trim(), options.bearer);
    if (needsSecret && !tokenOk && !bearerOk) return refuse(401, 'missing or wrong notification credentials');
    let raw: Buffer;
    try {
      raw = await req.readBody(limit);
    } catch {
      return refuse(413, 'body too large');
    }
    const idHeader = req.header('x-a2a-notification-id');
    let notificationId = idHeader !== undefined && idHeader !== '' ? idHeader : undefined;
    if (verify) {
      try {
        // The signed jti names the notification, header or not: a replay without the header
        // is still the same notification (issue 27, finding 9).
        notificationId = (await verify(req.header('x-a2a-notification-signature'), notificationId, raw)).jti;
      } catch (error) {
        return refuse(401, (error as Error).message);
      }
    }
    let event: StreamEvent;
    try {
      const value: unknown = JSON.parse(raw.toString('utf8'));
      if (!hasKnownMember(value)) throw new Error('not a StreamResponse');
      event = toStreamEvent(expectShape(StreamResponse, value, 'push notification'));
    } catch (error) {
      return refuse(400, `the body is not an A2A StreamResponse: ${(error as Error).message}`);
    }
    const taskId = eventTaskId(toStreamResponse(event));
    if (!taskId || !(await options.expectTask(taskId))) return refuse(404, 'unknown task');
    if (options.maxAgeMs !== undefined) {
      const stale = staleness(event, options.maxAgeMs);
      if (stale) return refuse(400, stale);
    }
    // Recorded before the answer so a duplicate arriving meanwhile is caught too.
    if (seen && !seen.add(taskId, event, notificationId)) return reply(200);
    if (seenJti && !seenJti.add(taskId, event, notificationId)) return reply(200);
    const info: PushNotificationInfo = {
      ...(notificationId !== undefined ? { notificationId } : {}),
      signature: verify ? 'verified' : 'unchecked',
    };
    return { ...reply(200), accepted: { event, taskId, info } };
  };
}

async function handOn(options: PushReceiverOptions, accepted: Checked['accepted']): Promise<void> {
  if (!accepted) return;
  try {
    await options.onEvent(accepted.event, accepted.taskId, accepted.info);
  } catch (error) {
    options.onError?.(error);
  }
}

/** A `node:http` request handler that accepts A2A push notifications. */
export function createPushReceiver(
  options: PushReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const check = pushChecker(options);
  return (req, res) => {
    let bodyRead = false;
    const request: PushHttpRequest = {
      method: req.method ?? 'GET',
      header: (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value[0] : value;
      },
      readBody: async (limit) => {
        bodyRead = true;
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > limit) throw new RangeError('body too large');
          chunks.push(chunk);
        }
        return Buffer.concat(chunks);
      },
    };
    void (async () => {
      const checked = await check(request);
      if (!bodyRead) req.resume();
      res.writeHead(checked.reply.status, checked.reply.headers);
      res.end(checked.reply.body);
      await handOn(options, checked.accepted);
    })().catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 500, message: 'internal error' } }));
      }
      options.onError?.(error);
    });
  };
}

/**
 * The same webhook as {@link createPushReceiver}, runtime-neutral: it answers a
 * {@link PushHttpRequest} (the request a `routes` entry of createA2AServer gets), then hands
 * the accepted event to `onEvent` on the next turn of the event loop, after the answer.
 */
export function createPushHandler(
  options: PushReceiverOptions,
): (req: PushHttpRequest) => Promise<PushHttpReply> {
  const check = pushChecker(options);
  return async (req) => {
    const checked = await check(req);
    if (checked.accepted) setImmediate(() => void handOn(options, checked.accepted));
    return checked.reply;
  };
}

/** Why `event` is too old to accept, or undefined when it is fresh or carries no timestamp. */
function staleness(event: StreamEvent, maxAgeMs: number): string | undefined {
  const timestamp = statusOf(event)?.timestamp;
  if (timestamp === undefined) return undefined;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return `stale check failed: the status timestamp "${timestamp}" is not a date`;
  const age = Date.now() - at;
  return age > maxAgeMs
    ? `stale notification: its status is from ${timestamp}, older than ${maxAgeMs} ms`
    : undefined;
}

/** JSON with object keys sorted, so that equal events give equal text whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Digests of recently accepted events, bounded in time and count. */
class RecentEvents {
  private readonly entries = new Map<string, number>();
  private readonly windowMs: number;
  private readonly maxEntries: number;
  constructor(options: { windowMs?: number; maxEntries?: number }) {
    this.windowMs = options.windowMs ?? 600_000;
    this.maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  }
  /**
   * Records the notification; false when the same one was recorded within the window. Named
   * notifications are the same when their ids are: equal content may legitimately repeat (a
   * text chunk appended twice).
   */
  add(taskId: string, event: StreamEvent, notificationId?: string): boolean {
    const now = Date.now();
    // Map order is insertion order: expired entries sit at the front.
    for (const [key, at] of this.entries) {
      if (now - at <= this.windowMs) break;
      this.entries.delete(key);
    }
    const key = createHash('sha256')
      .update(taskId)
      .update('\0')
      .update(
        notificationId !== undefined
          ? `id\0${notificationId}`
          : `body\0${canonical(toStreamResponse(event))}`,
      )
      .digest('base64');
    const at = this.entries.get(key);
    if (at !== undefined && now - at <= this.windowMs) return false;
    this.entries.delete(key);
    this.entries.set(key, now);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return true;
  }
}
