/**
 * What the v1.0 golden transcripts (generation-golden, generation-push-golden) share: the agent
 * of their scripts, numbered message ids, the placeholder rewrite and the HTTP answer line.
 */
import type { AgentExecutor } from '../../src/core/executor.js';

/** Asks for input on `ask`; otherwise works, streams one artifact and completes. */
export const GOLDEN_AGENT: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'ask') return task.requireInput('which one?');
    await task.working('step 1');
    await task.artifact({ name: 'out', text: `echo ${ctx.text ?? ''}` });
    return task.complete('done');
  },
};

/** The headers of a v1.0 JSON request. */
export const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** A user message maker whose ids are `<prefix>-1`, `<prefix>-2`, ... */
export function goldenMessages(prefix: string): (text: string, taskId?: string) => Record<string, unknown> {
  let seq = 0;
  return (text, taskId) => ({
    messageId: `${prefix}-${++seq}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId ? { taskId } : {}),
  });
}

/**
 * `text` with what changes from run to run replaced: the message ids of `prefix`, loopback
 * ports, and ids (UUIDs) and timestamps by numbered placeholders in order of first appearance.
 */
export function normalizeTranscript(text: string, prefix: string): string {
  const seen = new Map<string, string>();
  return text
    .replace(new RegExp(`${prefix}-\\d+`, 'g'), `${prefix}-N`)
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      let name = seen.get(id);
      if (!name) seen.set(id, (name = `<id${seen.size}>`));
      return name;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>');
}

/** Fetches `base + path`: the body, and the line a transcript keeps (status, version headers, body). */
export async function httpLine(
  base: string,
  path: string,
  init: RequestInit,
): Promise<{ text: string; line: string }> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  const headers = ['content-type', 'a2a-extensions', 'a2a-version']
    .map((h) => `${h}=${res.headers.get(h) ?? ''}`)
    .join(' ');
  return { text, line: `${res.status} ${headers}\n${text}` };
}
