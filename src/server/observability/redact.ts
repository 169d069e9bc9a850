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

/**
 * pino `redact` paths for loggers a2a-kit creates itself (the key-based rule, done again by
 * pino for anything an application logs through the same instance).
 */
export const PINO_REDACT_PATHS: readonly string[] = [
  'authorization',
  'token',
  'credentials',
  'password',
  'apiKey',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["x-a2a-notification-token"]',
  '*.authorization',
  '*.token',
  '*.credentials',
  '*.password',
  '*.apiKey',
  '*.*.token',
  '*.*.credentials',
];

const MAX_DEPTH = 6;
const MAX_STRING = 8192;

/** Whether a field named `key` holds a secret. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ''));
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
