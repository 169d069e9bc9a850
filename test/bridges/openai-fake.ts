/**
 * A small OpenAI-compatible chat-completions endpoint on loopback, for the AI SDK tests: each
 * request is answered by the next scripted turn (text deltas, or one tool call), streamed as
 * SSE chunks like the real API. It records the requests it received.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text in pieces, or a tool call; or made from the request. */
export type FakeTurn =
  | { text: string[] }
  | { tool: string; arguments: string }
  | ((request: FakeOpenAI['requests'][number]) => { text: string[] } | { tool: string; arguments: string });

/** A running fake endpoint. */
export interface FakeOpenAI {
  /** The base URL (`http://127.0.0.1:PORT/v1`). */
  baseURL: string;
  /** The JSON bodies received, in order. */
  requests: { model: string; messages: { role: string; content?: unknown }[]; tools?: unknown[] }[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** Starts the endpoint with `turns`, answered in order (the last one repeats). */
export async function startFakeOpenAI(turns: FakeTurn[]): Promise<FakeOpenAI> {
  const requests: FakeOpenAI['requests'] = [];
  let next = 0;
  const server = createServer((req, res) => {
    void body(req).then((raw) => {
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(raw) as FakeOpenAI['requests'][number];
      requests.push(request);
      const scripted = turns[Math.min(next++, turns.length - 1)]!;
      const turn = typeof scripted === 'function' ? scripted(request) : scripted;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: unknown, finish: string | null): void => {
        const c = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: request.model };
        res.write(
          `data: ${JSON.stringify({ ...c, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      };
      if ('text' in turn) {
        chunk({ role: 'assistant', content: '' }, null);
        for (const piece of turn.text) chunk({ content: piece }, null);
        chunk({}, 'stop');
      } else {
        chunk(
          {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: `call_${next}`,
                type: 'function',
                function: { name: turn.tool, arguments: turn.arguments },
              },
            ],
          },
          null,
        );
        chunk({}, 'tool_calls');
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
