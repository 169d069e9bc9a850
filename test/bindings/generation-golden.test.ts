/**
 * GEN-1: the A2A 1.1 draft support is opt-in. A v1.0 request (no `A2A-Version: 1.1`, no
 * generation extension in A2A-Extensions) must get exactly the bytes it got before the
 * feature existed, whether the operator turned the feature on or not. The transcript of a
 * fixed script of requests on JSON-RPC, REST and gRPC is compared, ids and timestamps
 * replaced by placeholders in order of appearance, with the golden file captured from the
 * code before the feature (`A2A_UPDATE_GOLDEN=1` rewrites it), for a server with the feature
 * off and one with it on. The v1.0 requests carry the draft's request fields
 * (`currentGeneration`, `ifGenerationMatch`): a v1.0 server ignores unknown fields, so must we.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import { GRPC_METHODS } from '../../src/bindings/grpc/service.js';
import { encodeMessage } from '../../src/bindings/grpc/encode.js';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';
import {
  GOLDEN_AGENT as agent,
  V1,
  goldenMessages,
  httpLine,
  normalizeTranscript,
} from './golden-support.js';

const GOLDEN = new URL('./fixtures/generation-golden-v1.json', import.meta.url);

type Transcript = Record<string, string>;

const message = goldenMessages('golden');
const normalize = (text: string): string => normalizeTranscript(text, 'golden');

async function jsonrpcScript(base: string): Promise<Transcript> {
  const out: Transcript = {};
  const rpc = (method: string, params: unknown) =>
    httpLine(base, '/a2a/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const sent = await rpc('SendMessage', { message: message('one') });
  out.send = sent.line;
  const id = (JSON.parse(sent.text) as { result: { task: { id: string } } }).result.task.id;
  out.get = (await rpc('GetTask', { id, currentGeneration: '1' })).line;
  out.getHistory = (await rpc('GetTask', { id, historyLength: 1 })).line;
  out.stream = (await rpc('SendStreamingMessage', { message: message('two') })).line;
  const asked = await rpc('SendMessage', { message: message('ask') });
  out.ask = asked.line;
  const askId = (JSON.parse(asked.text) as { result: { task: { id: string } } }).result.task.id;
  const subscription = fetch(base + '/a2a/jsonrpc', {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: askId } }),
  });
  const sub = await subscription;
  out.answer = (
    await rpc('SendMessage', {
      message: message('this one', askId),
      configuration: { ifGenerationMatch: '999' },
    })
  ).line;
  out.subscribe = `${sub.status}\n${await sub.text()}`;
  out.cancel = (await rpc('CancelTask', { id })).line;
  out.missing = (await rpc('GetTask', { id: 'no-such-task' })).line;
  return out;
}

async function restScript(base: string): Promise<Transcript> {
  const out: Transcript = {};
  const rest = (method: string, path: string, body?: unknown, headers: Record<string, string> = V1) =>
    httpLine(base, '/a2a/rest' + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const sent = await rest('POST', '/message:send', { message: message('one') });
  out.send = sent.line;
  const id = (JSON.parse(sent.text) as { task: { id: string } }).task.id;
  out.get = (await rest('GET', `/tasks/${id}?currentGeneration=1`)).line;
  out.getHistory = (await rest('GET', `/tasks/${id}?historyLength=1`)).line;
  out.stream = (await rest('POST', '/message:stream', { message: message('two') })).line;
  const asked = await rest('POST', '/message:send', { message: message('ask') });
  out.ask = asked.line;
  const askId = (JSON.parse(asked.text) as { task: { id: string } }).task.id;
  const sub = await fetch(`${base}/a2a/rest/tasks/${askId}:subscribe`, { headers: V1 });
  out.answer = (
    await rest('POST', '/message:send', {
      message: message('this one', askId),
      configuration: { ifGenerationMatch: '999' },
    })
  ).line;
  out.subscribe = `${sub.status}\n${await sub.text()}`;
  out.cancel = (await rest('POST', `/tasks/${id}:cancel`, {})).line;
  out.missing = (await rest('GET', '/tasks/no-such-task')).line;
  return out;
}

const identity = (b: Buffer): Buffer => b;

/** A raw gRPC call: each response message decoded with the proto and written as ProtoJSON. */
function grpcCall(
  target: string,
  method: 'SendMessage' | 'SendStreamingMessage' | 'GetTask',
  request: unknown,
) {
  const m = GRPC_METHODS[method];
  const bytes = Buffer.from(encodeMessage(m.input, request));
  const client = new Client(target, credentials.createInsecure());
  const md = new Metadata();
  md.set('a2a-version', '1.0');
  const decode = (b: Buffer): string => JSON.stringify(toJson(m.output, fromBinary(m.output, b)));
  return new Promise<string[]>((resolve, reject) => {
    const messages: string[] = [];
    if (!m.streaming) {
      client.makeUnaryRequest(m.path, identity, identity, bytes, md, (error, value) => {
        client.close();
        if (error) reject(error);
        else resolve([decode(value!)]);
      });
      return;
    }
    const call = client.makeServerStreamRequest(m.path, identity, identity, bytes, md);
    call.on('data', (b: Buffer) => messages.push(decode(b)));
    call.on('error', (error: Error) => {
      client.close();
      reject(error);
    });
    call.on('end', () => {
      client.close();
      resolve(messages);
    });
  });
}

async function grpcScript(target: string): Promise<Transcript> {
  const out: Transcript = {};
  const sent = await grpcCall(target, 'SendMessage', { message: message('one') });
  out.send = sent.join('\n');
  const id = (JSON.parse(sent[0]!) as { task: { id: string } }).task.id;
  out.get = (await grpcCall(target, 'GetTask', { id })).join('\n');
  out.stream = (await grpcCall(target, 'SendStreamingMessage', { message: message('two') })).join('\n');
  return out;
}

async function transcript(options: Partial<A2AServerOptions>): Promise<Transcript> {
  const server: A2AServer = createA2AServer({
    agent,
    card: TEST_CARD,
    grpc: { port: 0, host: '127.0.0.1' },
    store: 'memory',
    onError: () => undefined,
    logger: false,
    ...options,
  });
  try {
    const info = await server.listen(0, '127.0.0.1');
    const out: Transcript = {};
    for (const [k, v] of Object.entries(await jsonrpcScript(info.url))) out[`jsonrpc.${k}`] = normalize(v);
    for (const [k, v] of Object.entries(await restScript(info.url))) out[`rest.${k}`] = normalize(v);
    const grpc = await grpcScript(`127.0.0.1:${info.grpcPort}`);
    for (const [k, v] of Object.entries(grpc)) out[`grpc.${k}`] = normalize(v);
    return out;
  } finally {
    await server.close();
  }
}

describe('GEN-1: a v1.0 request sees the bytes it saw before the 1.1 draft support', () => {
  let golden: Transcript;
  before(() => {
    if (process.env.A2A_UPDATE_GOLDEN === '1') return;
    golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Transcript;
  });
  after(() => undefined);

  test('feature off: the golden transcript', async () => {
    const off = await transcript({});
    if (process.env.A2A_UPDATE_GOLDEN === '1') {
      writeFileSync(GOLDEN, JSON.stringify(off, null, 2) + '\n');
      golden = off;
      return;
    }
    assert.deepEqual(off, golden);
  });

  test('feature on: the same golden transcript for v1.0 requests', async () => {
    const on = await transcript(FEATURE_ON);
    assert.deepEqual(on, golden);
  });
});

/** The server options that turn the draft support on (everything it offers). */
const FEATURE_ON: Partial<A2AServerOptions> = { generation: { advertiseDraftVersion: true } };
