/** Small formatting helpers shared by the views. */
import type { Message, Part } from '../../model/schema.js';

/** `12:03:04.567` for a time in ms. */
export function clock(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** `TASK_STATE_INPUT_REQUIRED` → `input required`. */
export function stateLabel(state: string | undefined): string {
  return state
    ? state
        .replace(/^TASK_STATE_/, '')
        .replace(/_/g, ' ')
        .toLowerCase()
    : '';
}

/** The text parts of a message, joined. */
export function textOfMessage(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((p: Part) => ('text' in p && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** JSON for display, indented; never throws. */
export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A body pretty-printed when it is JSON, else as it is. */
export function prettyBody(body: string): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Shell-quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
/** True for the four terminal states. */
export function isTerminal(state: string | undefined): boolean {
  return state !== undefined && TERMINAL.includes(state);
}
