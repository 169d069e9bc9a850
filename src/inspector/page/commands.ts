/** An exchange as a command line: `curl` that sends the same bytes, or the `a2a` command that does the same. */
import type { WireExchange } from '../api-types.js';
import { shellQuote } from './format.js';

/** Headers curl sets itself, or that only describe the connection. */
const SKIPPED = new Set([
  'content-length',
  'host',
  'connection',
  'accept-encoding',
  'traceparent',
  'tracestate',
]);

/** `curl` sending this request as recorded (gRPC: a grpcurl line). */
export function curlOf(e: WireExchange, grpcAddress = 'HOST:PORT'): string {
  if (e.binding === 'GRPC') {
    return `grpcurl -plaintext -d ${shellQuote(e.request.body.replace(/\s*\n\s*/g, ' '))} ${shellQuote(grpcAddress)} lf.a2a.v1.A2AService/${e.method ?? ''}`;
  }
  const lines = [
    `curl${e.events.length || (e.response?.headers['content-type'] ?? '').includes('event-stream') ? ' -N' : ''} -X ${e.request.method} ${shellQuote(e.request.url)}`,
  ];
  for (const [k, v] of Object.entries(e.request.headers))
    if (!SKIPPED.has(k.toLowerCase())) lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  if (e.request.body) lines.push(`--data-raw ${shellQuote(e.request.body)}`);
  return lines.join(' \\\n  ');
}

interface Params {
  message?: { parts?: { text?: string }[]; taskId?: string; contextId?: string };
  id?: string;
}

/** The `a2a` command doing the same operation, when there is one. */
export function a2aCommandOf(e: WireExchange, agentUrl: string): string | undefined {
  let params: Params = {};
  try {
    const body = JSON.parse(e.request.body || '{}') as { params?: Params } & Params;
    params = e.binding === 'JSONRPC' ? (body.params ?? {}) : body;
  } catch {
    return undefined;
  }
  const url = shellQuote(agentUrl || 'URL');
  const binding =
    e.binding === 'HTTP+JSON' ? ' --binding rest' : e.binding === 'GRPC' ? ' --binding grpc' : '';
  const id = params.id ?? /\/tasks\/([^/:]+)/.exec(e.request.url)?.[1];
  switch (e.method ?? '') {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const text = (params.message?.parts ?? []).map((p) => p.text ?? '').join('');
      const task = params.message?.taskId ? ` --task ${shellQuote(params.message.taskId)}` : '';
      const ctx = params.message?.contextId ? ` --context ${shellQuote(params.message.contextId)}` : '';
      return `a2a send ${url} ${shellQuote(text)}${task}${ctx}${e.method === 'SendStreamingMessage' ? ' --stream' : ''}${binding}`;
    }
    case 'GetTask':
      return id ? `a2a get ${url} ${shellQuote(id)}${binding}` : undefined;
    case 'CancelTask':
      return id ? `a2a cancel ${url} ${shellQuote(id)}${binding}` : undefined;
    case 'SubscribeToTask':
      return id ? `a2a subscribe ${url} ${shellQuote(id)}${binding}` : undefined;
    case 'ListTasks':
      return `a2a list ${url}${binding}`;
    default:
      return e.binding === 'CARD' ? `a2a card ${url}` : undefined;
  }
}
