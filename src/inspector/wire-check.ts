/**
 * Spec checks of a recorded response: the JSON-RPC 2.0 envelope, and the A2A object each
 * operation answers with, checked by the model's wire validators. Each problem names the rule
 * it breaks and where.
 */
import { A2A_METHODS, type A2AMethod } from '../model/operations.js';
import { WIRE_VALIDATORS, type WireObjectName } from '../model/validators.js';
import type { WireExchange } from './wire.js';

/** One way a response breaks the spec. */
export interface WireProblem {
  /** The rule broken, e.g. `JSON-RPC 2.0 §5: jsonrpc must be "2.0"` or `a2a.proto Task`. */
  rule: string;
  /** Where: `body`, `event 3`, then a JSON path (`result.status.state`). */
  where: string;
  message: string;
}

/** The object each operation answers with (of each event, for the streaming two). */
const RESPONSE_OBJECT: Record<A2AMethod, WireObjectName> = {
  SendMessage: 'SendMessageResponse',
  SendStreamingMessage: 'StreamResponse',
  GetTask: 'Task',
  ListTasks: 'ListTasksResponse',
  CancelTask: 'Task',
  SubscribeToTask: 'StreamResponse',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsResponse',
  DeleteTaskPushNotificationConfig: 'Empty',
  GetExtendedAgentCard: 'AgentCard',
};

const MAX_PROBLEMS = 20;

/** The A2A operation of a REST request, from its method and path. */
export function restMethodOf(httpMethod: string, url: string): A2AMethod | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  if (path.endsWith('/message:send')) return 'SendMessage';
  if (path.endsWith('/message:stream')) return 'SendStreamingMessage';
  if (path.endsWith(':cancel')) return 'CancelTask';
  if (path.endsWith(':subscribe')) return 'SubscribeToTask';
  if (path.endsWith('/extendedAgentCard')) return 'GetExtendedAgentCard';
  if (/\/pushNotificationConfigs\/[^/]+$/.test(path))
    return httpMethod === 'DELETE' ? 'DeleteTaskPushNotificationConfig' : 'GetTaskPushNotificationConfig';
  if (path.endsWith('/pushNotificationConfigs'))
    return httpMethod === 'POST' ? 'CreateTaskPushNotificationConfig' : 'ListTaskPushNotificationConfigs';
  if (path.endsWith('/tasks')) return 'ListTasks';
  if (/\/tasks\/[^/]+$/.test(path)) return 'GetTask';
  return undefined;
}

function isA2AMethod(name: string | undefined): name is A2AMethod {
  return name !== undefined && (A2A_METHODS as readonly string[]).includes(name);
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

function checkObject(name: WireObjectName, value: unknown, where: string, prefix: string): WireProblem[] {
  const result = WIRE_VALIDATORS[name].check(value, 8);
  if (result.ok) return [];
  return result.violations.map((v) => ({
    rule: `a2a.proto ${name}`,
    where: `${where}${prefix}${v.path ? (prefix ? '.' : '') + v.path : ''}`,
    message: v.description,
  }));
}

function checkEnvelope(value: unknown, requestId: unknown, where: string, method: A2AMethod): WireProblem[] {
  const problems: WireProblem[] = [];
  const rule = (r: string, message: string, at = '') =>
    problems.push({ rule: `JSON-RPC 2.0 §5: ${r}`, where: where + at, message });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    rule('a response is an object', 'the body is not a JSON object');
    return problems;
  }
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== '2.0')
    rule(
      'jsonrpc must be "2.0"',
      'jsonrpc' in v ? `jsonrpc is ${JSON.stringify(v.jsonrpc)}` : 'jsonrpc is absent',
      ' jsonrpc',
    );
  if (requestId !== undefined && v.id !== requestId)
    rule(
      'id must equal the request id',
      `id ${JSON.stringify(v.id)}, request ${JSON.stringify(requestId)}`,
      ' id',
    );
  const hasResult = 'result' in v;
  const hasError = 'error' in v;
  if (hasResult === hasError) {
    rule('exactly one of result and error', hasResult ? 'both are present' : 'neither is present');
    return problems;
  }
  if (hasError) {
    const e = v.error as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e.code) || typeof e.message !== 'string')
      rule('error has an integer code and a string message', JSON.stringify(v.error), ' error');
    return problems;
  }
  problems.push(...checkObject(RESPONSE_OBJECT[method], v.result, where, ' result'));
  return problems;
}

function requestIdOf(body: string): unknown {
  const r = parse(body);
  return r.ok && typeof r.value === 'object' && r.value !== null
    ? (r.value as Record<string, unknown>).id
    : undefined;
}

/** Every spec problem of a finished exchange (none for gRPC: its messages are decoded already). */
export function checkExchange(exchange: WireExchange): WireProblem[] {
  const response = exchange.response;
  if (!response || exchange.binding === 'GRPC') return [];
  const problems: WireProblem[] = [];
  const isSse = (response.headers['content-type'] ?? '').includes('text/event-stream');
  const truncated = response.size > response.body.length + 64;
  if (exchange.binding === 'CARD') {
    if (response.status !== 200) return [];
    const r = parse(response.body);
    if (!r.ok)
      return truncated ? [] : [{ rule: 'spec §8.2: the card is JSON', where: 'body', message: r.message }];
    return checkObject('AgentCard', r.value, 'body', '');
  }
  const method =
    exchange.binding === 'JSONRPC'
      ? exchange.method
      : restMethodOf(exchange.request.method, exchange.request.url);
  // v0.3 methods (`message/send`) are translated by the compatibility layer; not checked here.
  if (!isA2AMethod(method)) return [];
  if (exchange.binding === 'JSONRPC') {
    const id = requestIdOf(exchange.request.body);
    if (isSse) {
      exchange.events.forEach((event, i) => {
        const r = parse(event.data);
        if (!r.ok)
          problems.push({
            rule: 'spec §9.4.2: each SSE event is a JSON-RPC response',
            where: `event ${i + 1}`,
            message: r.message,
          });
        else problems.push(...checkEnvelope(r.value, id, `event ${i + 1}`, method));
      });
      return problems.slice(0, MAX_PROBLEMS);
    }
    if (truncated) return [];
    const r = parse(response.body);
    if (!r.ok) return [{ rule: 'JSON-RPC 2.0 §5: the response is JSON', where: 'body', message: r.message }];
    return checkEnvelope(r.value, id, 'body', method).slice(0, MAX_PROBLEMS);
  }
  if (response.status < 200 || response.status > 299) return [];
  if (isSse) {
    exchange.events.forEach((event, i) => {
      const r = parse(event.data);
      if (!r.ok)
        problems.push({
          rule: 'spec §11.7: each SSE event is a StreamResponse',
          where: `event ${i + 1}`,
          message: r.message,
        });
      else problems.push(...checkObject('StreamResponse', r.value, `event ${i + 1}`, ''));
    });
    return problems.slice(0, MAX_PROBLEMS);
  }
  if (truncated) return [];
  const r = parse(response.body || 'null');
  if (!r.ok) return [{ rule: 'spec §11: the response body is JSON', where: 'body', message: r.message }];
  return checkObject(RESPONSE_OBJECT[method], r.value, 'body', '').slice(0, MAX_PROBLEMS);
}
