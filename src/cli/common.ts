/**
 * What every client command shares: where output goes, the connection options (`--token`,
 * `--api-key`, `--header`, `--tenant`, `--timeout`), URL normalisation and one-line errors
 * with their exit codes.
 */
import type { Command } from 'commander';
import { A2AClient, type A2AClientOptions } from '../client/client.js';
import { AgentCardResolver } from '../client/card-resolver.js';
import type { VerifiedCardJson } from '../client/card-signature.js';
import { bindingName, type BindingName } from '../client/binding-selection.js';
import { A2AError } from '../errors/a2a-error.js';
import {
  A2AClientError,
  A2AInterfacesUnreachableError,
  A2AInvalidResponseError,
  A2ANoCompatibleInterfaceError,
  A2ATimeoutError,
  A2ATransportError,
  A2AUntrustedInterfaceError,
} from '../errors/client-errors.js';
import { credentialOrigin } from '../client/credential-scope.js';
import type { AgentCard } from '../model/schema.js';
import { EXIT } from './exit-codes.js';

/** Where the commands write (replaceable in tests). */
export interface ClientCommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  setExitCode: (code: number) => void;
  /** Aborted when the reader of `out` went away (a closed pipe): the command stops quietly. */
  outputClosed?: AbortSignal;
  /** Writes without a newline (text growing in place); defaults to `out`. */
  write?: (text: string) => void;
  /** Aborted on Ctrl-C. */
  interrupted?: AbortSignal;
}

/**
 * The process's stdout and stderr. A closed stdout (`a2a send ... | head -2`: EPIPE) is not a
 * failure of the command: it stops what it is doing, prints nothing more and exits 0.
 */
export function processIO(): ClientCommandIO {
  const closed = new AbortController();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed.abort(error);
  });
  let interrupted: AbortController | undefined;
  return {
    // Installed on first use, so `a2a serve` keeps its own SIGINT handling.
    get interrupted(): AbortSignal {
      if (!interrupted) {
        const controller = new AbortController();
        interrupted = controller;
        process.on('SIGINT', () => {
          if (controller.signal.aborted) process.exit(130); // a second Ctrl-C: leave at once
          controller.abort(new Error('interrupted'));
        });
      }
      return interrupted.signal;
    },
    out: (l) => {
      if (!closed.signal.aborted) process.stdout.write(`${l}\n`);
    },
    write: (text) => {
      if (!closed.signal.aborted) process.stdout.write(text);
    },
    err: (l) => process.stderr.write(`${l}\n`),
    setExitCode: (c) => {
      if (!closed.signal.aborted) process.exitCode = c;
    },
    outputClosed: closed.signal,
  };
}

/** Options every client command takes. */
export interface ConnectionOptions {
  token?: string;
  apiKey?: string;
  header?: string[];
  /** More origins `--token` / `--api-key` may be sent to (CLI-AUTH-3). */
  credentialOrigin?: string[];
  tenant?: string;
  timeout?: number;
  binding?: string;
  json?: boolean;
  debug?: boolean;
}

/** A usage mistake: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `--timeout`: `90`, `90s`, `1500ms`, `5m` (a bare number is seconds). */
export function parseDuration(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!m) throw new UsageError(`not a duration: ${value} (use 90, 90s, 1500ms or 5m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000));
}

const collectHeader = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The origins credentials may go to: the agent URL's (the card is fetched there), then those of
 * `--credential-origin`. An interface of the card elsewhere gets no credentials (CLI-AUTH-3).
 */
function credentialOriginsOf(base: string, opts: ConnectionOptions): string[] {
  for (const entry of opts.credentialOrigin ?? []) {
    if (!credentialOrigin(entry)) throw new UsageError(`--credential-origin: not an origin: ${entry}`);
  }
  return [base, ...(opts.credentialOrigin ?? [])];
}

/** Adds the connection options to `command`. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('--token <token>', 'bearer token (Authorization: Bearer ...)')
    .option('--api-key <key>', "API key, sent where the agent's card asks")
    .option(
      '--header <K:V>',
      'extra header on every request, card fetch included (repeatable)',
      collectHeader,
    )
    .option(
      '--credential-origin <origin>',
      "also send --token / --api-key to this origin when the card's interfaces are elsewhere (repeatable)",
      collectHeader,
    )
    .option('--tenant <tenant>', 'tenant to address')
    .option(
      '--timeout <duration>',
      'give up after this long (90, 90s, 1500ms, 5m); default: wait',
      parseDuration,
    )
    .option('--binding <binding>', 'jsonrpc, rest or grpc (default: the card decides)')
    .option('--json', 'print NDJSON: one {"kind": ..., "<kind>": ...} object per line')
    .option('--debug', 'print stack traces of errors');
}

/** `127.0.0.1:45100` → `http://127.0.0.1:45100`; a URL with a scheme is kept. */
export function normalizeUrl(url: string): string {
  const trimmed = url.trim();
  if (!trimmed) throw new UsageError('the agent URL is empty');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  try {
    new URL(withScheme);
  } catch {
    throw new UsageError(`not a URL: ${url}`);
  }
  return withScheme;
}

/** A hint when `url` looks like an endpoint rather than the agent's base URL. */
export function endpointHint(url: string): string | undefined {
  const u = new URL(url);
  const m = /^(.*?)\/(a2a\/(?:jsonrpc|rest)|v1)(?:\/.*)?$/.exec(u.pathname);
  if (!m) return undefined;
  return `${url} looks like an endpoint URL; pass the agent's base URL instead: ${u.origin}${m[1]}`;
}

function headersOf(opts: ConnectionOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header needs K:V, got ${JSON.stringify(h)}`);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  return headers;
}

/** The A2AClient options for `opts`. */
export function clientOptions(opts: ConnectionOptions): A2AClientOptions {
  let bindings: BindingName[] | undefined;
  if (opts.binding) {
    const b = bindingName(opts.binding);
    if (!b) throw new UsageError(`unknown binding "${opts.binding}" (use jsonrpc, rest or grpc)`);
    bindings = [b];
  }
  return {
    ...(bindings ? { bindings } : {}),
    headers: headersOf(opts),
    ...(opts.token ? { auth: { bearer: opts.token } } : opts.apiKey ? { auth: { apiKey: opts.apiKey } } : {}),
  };
}

/** Fetches the card at `url` with the connection options (headers and credentials apply). */
export async function fetchCard(
  url: string,
  opts: ConnectionOptions,
  verify?: (card: AgentCard, raw: unknown) => Promise<void | VerifiedCardJson>,
): Promise<{ card: AgentCard; notes: string[] }> {
  const options = clientOptions(opts);
  const headers = { ...options.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const resolver = new AgentCardResolver({ headers, ...(verify ? { verify } : {}) });
  const resolved = await resolver.resolve(url);
  return { card: resolved.card, notes: resolved.notes };
}

/** Connects to the agent at `url` (base URL, with or without scheme) with `opts`. */
export async function connect(
  url: string,
  opts: ConnectionOptions,
): Promise<A2AClient & { readonly card: AgentCard }> {
  const base = normalizeUrl(url);
  const { card } = await fetchCard(base, opts);
  const target: AgentCard = opts.tenant
    ? { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, tenant: opts.tenant! })) }
    : card;
  const options = { ...clientOptions(opts), credentialOrigins: credentialOriginsOf(base, opts) };
  return (await A2AClient.connect(target, options)) as A2AClient & { readonly card: AgentCard };
}

/** The exit code for an error thrown by a command. */
export function exitCodeOfError(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof A2AInvalidResponseError || error instanceof A2AError) return EXIT.protocol;
  if (error instanceof A2ANoCompatibleInterfaceError || error instanceof A2AUntrustedInterfaceError)
    return EXIT.protocol;
  if (error instanceof A2ATransportError && error.status !== undefined && error.status !== 404)
    return EXIT.protocol;
  if (
    error instanceof A2ATransportError ||
    error instanceof A2ATimeoutError ||
    error instanceof A2AInterfacesUnreachableError ||
    error instanceof A2AClientError
  )
    return EXIT.network;
  return EXIT.failed;
}

/** One human line for `error` (no stack), with a hint where one helps. */
export function describeError(error: unknown, url?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof A2AError || error instanceof A2AClientError ? `${error.name}: ` : '';
  let line = `${name}${message.split('\n')[0]}`;
  if (/ECONNREFUSED/.test(message)) line += ' (is the agent running?)';
  if (url) {
    try {
      const hint = endpointHint(normalizeUrl(url));
      if (hint && error instanceof A2ATransportError) line += `\n  hint: ${hint}`;
    } catch {
      // not a URL: already reported
    }
  }
  return line;
}

/** Reports `error` on stderr as one line (a stack only with --debug) and sets the exit code. */
export function fail(
  io: ClientCommandIO,
  error: unknown,
  opts: { debug?: boolean } = {},
  url?: string,
): void {
  if (io.outputClosed?.aborted) return; // the reader left: nothing to report to anyone
  io.err(`a2a: ${describeError(error, url)}`);
  if (opts.debug && error instanceof Error && error.stack) io.err(error.stack);
  io.setExitCode(exitCodeOfError(error));
}
