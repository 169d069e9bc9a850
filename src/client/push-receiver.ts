/**
 * A webhook endpoint for push notifications (CLI-PUSH-1..3, 8): checks the token or bearer
 * credentials it was given, checks the task is one the app expects, answers 2xx at once,
 * then hands the typed event to the app.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { StreamResponse } from '../model/schema.js';
import { expectShape } from './decode.js';
import { hasKnownMember, eventTaskId } from './stream-guard.js';
import { toStreamEvent, type StreamEvent } from './client.js';

/** Options of {@link createPushReceiver}. */
export interface PushReceiverOptions {
  /** Expected `X-A2A-Notification-Token` (the config's `token`). */
  token?: string;
  /** Expected `Authorization: Bearer <value>` (the config's `authentication`). */
  bearer?: string;
  /** True when the task id is one this app created or expects (CLI-PUSH-3). */
  expectTask: (taskId: string) => boolean | Promise<boolean>;
  /** Receives each accepted event, after the 2xx answer was sent. */
  onEvent: (event: StreamEvent, taskId: string) => void | Promise<void>;
  /** Receives failures of `onEvent`. */
  onError?: (error: unknown) => void;
  /** Largest accepted body, bytes. @default 1048576 */
  bodyLimit?: number;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function answer(res: ServerResponse, status: number, message?: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(message ? JSON.stringify({ error: { code: status, message } }) : '{}');
}

/** A `node:http` request handler that accepts A2A push notifications. */
export function createPushReceiver(
  options: PushReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  if (options.token === undefined && options.bearer === undefined) {
    throw new Error('createPushReceiver: configure a token or bearer credentials (CLI-PUSH-2)');
  }
  const limit = options.bodyLimit ?? 1024 * 1024;
  return (req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return answer(res, 405, 'use POST');
      }
      const token = req.headers['x-a2a-notification-token'];
      const auth = req.headers.authorization ?? '';
      const tokenOk = options.token !== undefined && typeof token === 'string' && same(token, options.token);
      const bearerOk =
        options.bearer !== undefined && /^bearer /i.test(auth) && same(auth.slice(7).trim(), options.bearer);
      if (!tokenOk && !bearerOk) {
        req.resume();
        return answer(res, 401, 'missing or wrong notification credentials');
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) return answer(res, 413, 'body too large');
        chunks.push(chunk);
      }
      let event: StreamEvent;
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (!hasKnownMember(value)) throw new Error('not a StreamResponse');
        event = toStreamEvent(expectShape(StreamResponse, value, 'push notification'));
      } catch (error) {
        return answer(res, 400, `the body is not an A2A StreamResponse: ${(error as Error).message}`);
      }
      const taskId = eventTaskId(streamResponseOf(event));
      if (!taskId || !(await options.expectTask(taskId))) {
        return answer(res, 404, 'unknown task');
      }
      answer(res, 200);
      try {
        await options.onEvent(event, taskId);
      } catch (error) {
        options.onError?.(error);
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) answer(res, 500, 'internal error');
      options.onError?.(error);
    });
  };
}

function streamResponseOf(event: StreamEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: event.task };
    case 'message':
      return { message: event.message };
    case 'statusUpdate':
      return { statusUpdate: event.statusUpdate };
    default:
      return { artifactUpdate: event.artifactUpdate };
  }
}
