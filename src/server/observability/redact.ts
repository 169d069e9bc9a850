/**
 * Keeps secrets out of logs: by key (any field named like a credential is replaced, at any
 * depth) and by value (credential-looking text inside strings such as error messages and
 * stacks is masked). Applied by our own code to everything it logs, so it holds whatever pino
 * instance the application passes.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

/** Field names (lowercased, without `-` and `_`) whose values are always secrets. */
const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'credential',
  'credentials',
  'password',
  'passwd',
  'secret',
  'clientsecret',
  'cookie',
  'setcookie',
  'xa2anotificationtoken',
  'privatekey',
]);

/** How deep {@link redactLogFields} looks for secret-named fields (pino's log object is depth 0). */
const LOG_FIELD_DEPTH = 4;

/**
 * The log object with every secret-named field (at any of the first four levels, in objects
 * and arrays) replaced by {@link REDACTED}: the key-based rule again, as pino's `formatters.log`
 * of the loggers a2a-kit creates, for anything an application logs through the same instance.
 * Returns `fields` itself when nothing is secret (the common case: no copy). pino's own
 * `redact` paths did this with wildcards at about 8 µs a line; this walk costs well under 1 µs.
 */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactLevel(fields, 0) as Record<string, unknown>;
}

function redactLevel(value: object, depth: number): object {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length && i < 50; i++) {
      const item: unknown = value[i];
      if (item === null || typeof item !== 'object' || depth + 1 >= LOG_FIELD_DEPTH) continue;
      const next = redactLevel(item, depth + 1);
      if (next !== item) (copy ??= [...value])[i] = next;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    let next: unknown = item;
    if (isSecretKey(key)) next = REDACTED;
    else if (
      item !== null &&
      typeof item === 'object' &&
      depth + 1 < LOG_FIELD_DEPTH &&
      !(item instanceof Error)
    ) {
      next = redactLevel(item, depth + 1);
    }
    if (next !== item) (copy ??= { ...record })[key] = next;
  }
  return copy ?? value;
}

const MAX_DEPTH = 6;
const MAX_STRING = 8192;

/** Answers of {@link isSecretKey} by key: a log line asks the same few keys again and again. */
const secretKeyAnswers = new Map<string, boolean>();
/** Keys remembered at most (an application logging ever-new keys only loses the shortcut). */
const MAX_REMEMBERED_KEYS = 1024;

/** Whether a field named `key` holds a secret. */
export function isSecretKey(key: string): boolean {
  let secret = secretKeyAnswers.get(key);
  if (secret === undefined) {
    secret = SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ''));
    if (secretKeyAnswers.size < MAX_REMEMBERED_KEYS) secretKeyAnswers.set(key, secret);
  }
  return secret;
}

// Credential shapes inside free text: auth schemes, JWTs, `key=value` / `"key": "value"` pairs.
const SCHEME = /\b(Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/=-]{4,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const PAIR =
  /\b(authorization|api[-_]?key|x-api-key|access[-_]?token|refresh[-_]?token|token|credentials?|password|secret|client[-_]?secret|x-a2a-notification-token)(["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi;
const PLAIN = /^[\w-]{0,128}$/;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi;

/**
 * Masks credential-looking text in `text`, and every one of `secrets` (exact values the
 * application registered, e.g. its API keys). Long text is cut at 8 KiB.
 */
export function scrubText(text: string, secrets?: ReadonlySet<string>): string {
  let out = text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…` : text;
  if (secrets) {
    for (const secret of secrets)
      if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // Ids and names (no space, `=`, `:`, `.` or `/`) cannot hold any shape below: the common case.
  if (PLAIN.test(out)) return out;
  return out
    .replace(SCHEME, `$1 ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(PAIR, `$1$2${REDACTED}`)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}

/**
 * A copy of `value` safe to log: secret-named fields replaced, strings scrubbed, URLs without
 * query strings (they may carry tokens), depth and size bounded.
 */
export function redactValue(value: unknown, secrets?: ReadonlySet<string>, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    return value.slice(0, 50).map((item) => redactValue(item, secrets, depth + 1));
  }
  const out: Record<string, unknown> = {};
  let fields = 0;
  for (const [key, item] of Object.entries(value)) {
    if (++fields > 50) break;
    if (isSecretKey(key)) out[key] = REDACTED;
    else if (key === 'url' && typeof item === 'string') out[key] = safeUrl(item, secrets);
    else out[key] = redactValue(item, secrets, depth + 1);
  }
  return out;
}

/** `url` without its query, fragment and user info (scrubbed when it does not parse). */
export function safeUrl(url: string, secrets?: ReadonlySet<string>): string {
  try {
    const parsed = new URL(url);
    return scrubText(`${parsed.protocol}//${parsed.host}${parsed.pathname}`, secrets);
  } catch {
    return scrubText(url.split(/[?#]/, 1)[0] ?? '', secrets);
  }
}

/** An error as a log field: type, message, code and stack, all scrubbed. */
export function errorField(
  error: unknown,
  secrets?: ReadonlySet<string>,
): { type: string; message: string; code?: string; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: scrubText(String(error), secrets) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: scrubText(error.message, secrets),
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack ? { stack: scrubText(error.stack, secrets) } : {}),
  };
}
