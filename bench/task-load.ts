/**
 * The load of the `a2a serve` scenarios (shipped, replicas-throughput): JSON-RPC SendMessage
 * `task:hello` with a fresh messageId per request, every answer checked for COMPLETED.
 */
import autocannon from 'autocannon';

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'task:hello' }] } },
});

/** Loads `url` for `seconds` with `connections`; req/s and the failed requests. */
export async function taskLoad(
  url: string,
  seconds: number,
  connections: number,
): Promise<{ value: number; failures: number }> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: HEADERS,
    body: BODY,
    idReplacement: true,
    connections,
    duration: seconds,
    verifyBody: (b: string) => b.includes('TASK_STATE_COMPLETED'),
  });
  return {
    value: result.requests.total / result.duration,
    failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
  };
}

/** The median of `values` (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
