/**
 * A tiny pretty printer for pino's JSON lines (`a2a serve` on a terminal):
 * `12:00:01.234 INFO  request op=SendMessage binding=jsonrpc ms=1.2`, with an error's stack
 * on the following lines.
 */
import pc from 'picocolors';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'err']);

function color(level: number, text: string): string {
  if (level >= 50) return pc.red(text);
  if (level >= 40) return pc.yellow(text);
  if (level >= 30) return pc.green(text);
  return pc.gray(text);
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** One JSON log line as a human-readable line (the input back when it is not JSON). */
export function formatPretty(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${pc.dim(`${key}=`)}${formatValue(value)}`)
    .join(' ');
  let out = `${pc.dim(time)} ${color(level, LEVELS[level] ?? String(level))} ${String(entry.msg ?? '')}${fields ? ` ${fields}` : ''}\n`;
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) out += `${(err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`).replace(/^/gm, '    ')}\n`;
  return out;
}

/** A pino destination that writes {@link formatPretty} lines to `destination`. */
export function prettyStream(destination: NodeJS.WritableStream): { write(line: string): void } {
  return {
    write(line: string) {
      destination.write(formatPretty(line.trimEnd()));
    },
  };
}
