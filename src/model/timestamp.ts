/**
 * RFC 3339 timestamps as ProtoJSON writes `google.protobuf.Timestamp`: input may carry
 * any number of fractional digits and any offset (G14); output is always UTC with
 * exactly three fractional digits (`2026-11-30T12:00:00.000Z`).
 */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** True when `value` is an RFC 3339 timestamp with a zone designator. */
export function isTimestamp(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 31 &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 60 &&
    !Number.isNaN(Date.parse(value.replace(/(\.\d{3})\d+/, '$1')))
  );
}

/** Milliseconds since the epoch for an RFC 3339 timestamp (sub-millisecond digits dropped). */
export function timestampToMillis(value: string): number {
  return Date.parse(value.replace(/(\.\d{3})\d+/, '$1'));
}

let lastMs = NaN;
let lastText = '';

/**
 * Formats epoch milliseconds (or a Date) as `YYYY-MM-DDTHH:mm:ss.sssZ`. The last result is
 * remembered: many status changes share a millisecond.
 */
export function formatTimestamp(at: number | Date = Date.now()): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

/** Re-writes any accepted timestamp in the canonical UTC millisecond form. */
export function normalizeTimestamp(value: string): string {
  return formatTimestamp(timestampToMillis(value));
}
