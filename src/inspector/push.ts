/**
 * The inspector's built-in push receiver: a webhook per task the page points at it, recording
 * every delivery (headers, body, token and signature checks) for the Push view. Bounded: at
 * most {@link MAX_RECEIVERS} receivers and {@link MAX_DELIVERIES} deliveries are kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createPushSignatureVerifier,
  pushJwksOnAgentOrigin,
  type PushSignatureVerifier,
} from '../client/push-signature.js';
import { WIRE_VALIDATORS } from '../model/validators.js';
import type { AgentCard } from '../model/schema.js';
import type { PushDelivery, PushReceiverInfo } from './api-types.js';

const MAX_RECEIVERS = 64;
const MAX_DELIVERIES = 500;
const BODY_LIMIT = 1024 * 1024;

interface Receiver extends PushReceiverInfo {
  token: string;
  verifier: PushSignatureVerifier | undefined;
  /** Why there is no verifier, shown on a signed delivery. */
  noVerifier: string;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Receivers and what they received. */
export class PushInbox {
  private readonly receivers = new Map<string, Receiver>();
  private readonly deliveries: PushDelivery[] = [];
  private seq = 0;
  private readonly listeners = new Set<(d: PushDelivery) => void>();

  /**
   * Makes a receiver for `taskId` at `{baseUrl}/push/<id>`; returns it with its secret token.
   * `agentOrigins` are the origins the card's push JWKS may be on (see pushJwksOnAgentOrigin):
   * a card must not make the inspector GET any address of its network.
   */
  create(
    baseUrl: string,
    taskId: string,
    card: AgentCard | undefined,
    agentOrigins: readonly string[] = [],
  ): Receiver {
    const id = randomBytes(9).toString('base64url');
    const url = `${baseUrl}/push/${id}`;
    const jwks = pushJwksOnAgentOrigin(card, agentOrigins);
    const receiver: Receiver = {
      id,
      url,
      taskId,
      configId: `inspector-${id}`,
      token: randomBytes(18).toString('base64url'),
      verifier: 'jwks' in jwks ? createPushSignatureVerifier({ jwks: jwks.jwks, audience: url }) : undefined,
      noVerifier: 'refused' in jwks ? `signed, but ${jwks.refused}` : '',
    };
    this.receivers.set(id, receiver);
    while (this.receivers.size > MAX_RECEIVERS)
      this.receivers.delete(this.receivers.keys().next().value as string);
    return receiver;
  }

  /** Forgets a receiver (its config could not be stored). */
  remove(id: string): void {
    this.receivers.delete(id);
  }

  list(after = 0): PushDelivery[] {
    return this.deliveries.filter((d) => d.seq > after);
  }

  subscribe(listener: (d: PushDelivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Handles `POST /push/<id>`: records the delivery whatever it holds, then answers. */
  async handle(id: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receiver = this.receivers.get(id);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    if (!receiver || req.method !== 'POST') {
      res.writeHead(receiver ? 405 : 404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const raw = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const given = headers['x-a2a-notification-token'];
    const token: PushDelivery['token'] =
      given === undefined ? 'missing' : same(given, receiver.token) ? 'ok' : 'wrong';
    let signature: PushDelivery['signature'];
    const sigHeader = headers['x-a2a-notification-signature'];
    if (!sigHeader) signature = { status: 'unsigned', message: 'no X-A2A-Notification-Signature header' };
    else if (!receiver.verifier) signature = { status: 'unchecked', message: receiver.noVerifier };
    else {
      try {
        await receiver.verifier(sigHeader, headers['x-a2a-notification-id'], raw);
        signature = { status: 'verified', message: 'signed by a key of the agent push JWKS, over this body' };
      } catch (error) {
        signature = { status: 'failed', message: (error as Error).message };
      }
    }
    const body = raw.toString('utf8');
    let problems: PushDelivery['problems'] = [];
    let taskId: string | undefined;
    try {
      const value = JSON.parse(body) as Record<string, { taskId?: string; id?: string } | undefined>;
      const checked = WIRE_VALIDATORS.StreamResponse.check(value, 8);
      if (!checked.ok)
        problems = checked.violations.map((v) => ({ path: v.path || '(body)', message: v.description }));
      taskId = value.task?.id ?? value.statusUpdate?.taskId ?? value.artifactUpdate?.taskId;
    } catch (error) {
      problems = [{ path: '(body)', message: `not JSON: ${(error as Error).message}` }];
    }
    const answered = token === 'ok' && signature.status !== 'failed' ? 200 : 401;
    res.writeHead(answered, { 'content-type': 'application/json' }).end('{}');
    const delivery: PushDelivery = {
      seq: ++this.seq,
      at: Date.now(),
      receiver: id,
      ...(taskId ? { taskId } : {}),
      headers,
      body: body.length > 65_536 ? `${body.slice(0, 65_536)}\n…[truncated by the inspector]` : body,
      answered,
      token,
      signature,
      problems,
    };
    this.deliveries.push(delivery);
    if (this.deliveries.length > MAX_DELIVERIES) this.deliveries.shift();
    for (const listener of this.listeners) listener(delivery);
  }
}
