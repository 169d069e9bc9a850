/**
 * A small bounded gRPC load generator: `concurrency` unary calls kept in flight, spread over
 * a few HTTP/2 connections, until the duration is over. Every call sends a SendMessageRequest with a fresh
 * messageId (a repeated one would be answered from the idempotency record); every reply must
 * end with grpc-status 0 and decode to a COMPLETED task.
 *
 * It speaks gRPC over node:http2 directly rather than through a @grpc/grpc-js client: that
 * client spends about 110 µs of CPU per call, so on the one core the load generator gets it
 * saturated near 5,000 calls/s and hid the servers' speed.
 */
import { randomBytes } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { connect, type ClientHttp2Session } from 'node:http2';
import {
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  TaskState,
} from '../src/bindings/grpc/gen/lf/a2a/v1/a2a_pb.js';

/** One gRPC load run. */
export interface GrpcLoadOptions {
  /** `host:port`. */
  target: string;
  /** The text of the user message (`task:hello`). */
  text: string;
  /** Calls in flight at once, spread over the connections. */
  concurrency: number;
  /** HTTP/2 connections to spread the calls over. @default 1 */
  connections?: number;
  durationMs: number;
  /** Stop after starting this many calls, even before the duration is over. */
  maxCalls?: number;
  /** Per-call deadline (sent as `grpc-timeout`). */
  timeoutMs?: number;
}

/** Totals of one gRPC load run. */
export interface GrpcLoadResult {
  calls: number;
  /** Calls that failed or whose reply was not a COMPLETED task. */
  failures: number;
  seconds: number;
  callsPerSecond: number;
}

const SEND_MESSAGE = '/lf.a2a.v1.A2AService/SendMessage';
const ID_LENGTH = 24;
const ID_PLACEHOLDER = 'x'.repeat(ID_LENGTH);

/** Unique ids for this process: a random prefix and a counter, always {@link ID_LENGTH} characters. */
const idPrefix = randomBytes(6).toString('hex');
let idCounter = 0;
function nextId(): string {
  idCounter++;
  return idPrefix + idCounter.toString(36).padStart(ID_LENGTH - idPrefix.length, '0');
}

/**
 * The request encoded once with a placeholder messageId; each call copies it and writes a fresh
 * id of the same length over the placeholder, so the load side spends almost nothing per call.
 */
function requestTemplate(text: string): { bytes: Buffer; idOffset: number } {
  const message = create(SendMessageRequestSchema, {
    message: {
      messageId: ID_PLACEHOLDER,
      role: Role.USER,
      parts: [{ content: { case: 'text', value: text } }],
    },
  });
  const bytes = Buffer.from(toBinary(SendMessageRequestSchema, message));
  const idOffset = bytes.indexOf(ID_PLACEHOLDER, 0, 'latin1');
  if (idOffset < 0) throw new Error('placeholder not found in the encoded request');
  return { bytes, idOffset };
}

function completedTask(reply: Buffer): boolean {
  const response = fromBinary(SendMessageResponseSchema, reply);
  return response.payload.case === 'task' && response.payload.value.status?.state === TaskState.COMPLETED;
}

/** Splits gRPC length-prefixed frames; undefined when the bytes are not exactly whole frames. */
function onlyMessage(body: Buffer): Buffer | undefined {
  if (body.length < 5 || body[0] !== 0) return undefined;
  const length = body.readUInt32BE(1);
  return body.length === 5 + length ? body.subarray(5) : undefined;
}

/** Runs the load; resolves when every call started before the deadline has ended. */
export async function grpcLoad(options: GrpcLoadOptions): Promise<GrpcLoadResult> {
  const template = requestTemplate(options.text);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sessions = await Promise.all(
    Array.from({ length: Math.max(1, options.connections ?? 1) }, async () => {
      const session = connect(`http://${options.target}`);
      await new Promise<void>((resolve, reject) => {
        session.once('connect', () => resolve());
        session.once('error', reject);
      });
      session.on('error', () => undefined);
      return session;
    }),
  );
  const headers = {
    ':method': 'POST',
    ':path': SEND_MESSAGE,
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-timeout': `${timeoutMs}m`,
    'a2a-version': '1.0',
  };
  // The request message in its gRPC frame: no compression, 4-byte length, the message.
  const frameTemplate = Buffer.alloc(5 + template.bytes.length);
  frameTemplate.writeUInt32BE(template.bytes.length, 1);
  template.bytes.copy(frameTemplate, 5);
  const idOffset = 5 + template.idOffset;

  let calls = 0;
  let startedCalls = 0;
  let failures = 0;
  const maxCalls = options.maxCalls ?? Infinity;
  const started = process.hrtime.bigint();
  const end = Date.now() + options.durationMs;

  const call = (session: ClientHttp2Session): Promise<void> =>
    new Promise((resolve) => {
      const frame = Buffer.from(frameTemplate);
      frame.write(nextId(), idOffset, ID_LENGTH, 'latin1');
      const stream = session.request(headers);
      const chunks: Buffer[] = [];
      let status: unknown;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        calls++;
        let good = false;
        if (status === '0') {
          const message = onlyMessage(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
          try {
            good = message !== undefined && completedTask(message);
          } catch {
            good = false;
          }
        }
        if (!good) failures++;
        resolve();
      };
      stream.on('response', (h) => {
        // A trailers-only reply (an error) carries the status in the headers.
        if (h['grpc-status'] !== undefined) status = h['grpc-status'];
      });
      stream.on('trailers', (t) => {
        status = t['grpc-status'];
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('close', finish);
      stream.on('error', finish);
      stream.end(frame);
    });

  const worker = async (_: unknown, i: number): Promise<void> => {
    const session = sessions[i % sessions.length]!;
    while (Date.now() < end && startedCalls < maxCalls) {
      startedCalls++;
      await call(session);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(
    sessions.map((session) => new Promise<void>((resolve) => session.close(() => resolve()))),
  );
  return { calls, failures, seconds, callsPerSecond: calls / seconds };
}
