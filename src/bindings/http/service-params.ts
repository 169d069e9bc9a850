/**
 * A2A service parameters (spec 3.2.6), shared by every binding: `A2A-Version` negotiation
 * (N8, N9) and `A2A-Extensions` (SRV-EXT).
 */
import { ExtensionSupportRequiredError, VersionNotSupportedError } from '../../errors/a2a-error.js';
import { PROTOCOL_VERSION } from '../../model/operations.js';
import type { AgentCard } from '../../model/schema.js';
import { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION } from '../../model/draft.js';
import { quoteForMessage, type HttpRequest } from './http-body.js';

/** The versions this server answers (Major.Minor), in preference order. */
export const SUPPORTED_VERSIONS: readonly string[] = [PROTOCOL_VERSION];

/** Header names (lowercase, as node reports them). */
export const VERSION_HEADER = 'a2a-version';
export const EXTENSIONS_HEADER = 'a2a-extensions';
/** The v0.3 spelling of the extensions header (SRV-EXT-9). */
export const LEGACY_EXTENSIONS_HEADER = 'x-a2a-extensions';

const MAJOR_MINOR = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/;

/**
 * The protocol version to serve a request with, from the `A2A-Version` header (or query
 * parameter). A patch component is ignored (`1.0.3` is `1.0`). An absent value means `0.3`
 * (spec 3.6.2) unless the request is unmistakably v1.0 (`looksLikeV1`), which is then served
 * as `1.0` (N9 leniency). Throws VersionNotSupportedError for any other version.
 */
export function resolveVersion(
  headerOrQueryValue: string | undefined,
  looksLikeV1: boolean,
  acceptDraft = false,
): string {
  // Repeated header lines arrive joined by commas (node, grpc-js); identical repeats are one version.
  if (headerOrQueryValue !== undefined && headerOrQueryValue.includes(',')) {
    headerOrQueryValue = sameRepeats(headerOrQueryValue);
  }
  if (headerOrQueryValue === undefined || headerOrQueryValue.trim() === '') {
    if (looksLikeV1) return PROTOCOL_VERSION;
    throw versionError('0.3', 'No A2A-Version was sent, which means 0.3');
  }
  if (headerOrQueryValue === PROTOCOL_VERSION) return PROTOCOL_VERSION;
  const m = MAJOR_MINOR.exec(headerOrQueryValue);
  if (m) {
    const version = `${Number(m[1])}.${Number(m[2])}`;
    if (SUPPORTED_VERSIONS.includes(version)) return version;
    // GEN-1: the A2A 1.1 draft, only on a server that turned it on (else refused as before).
    if (acceptDraft && version === DRAFT_PROTOCOL_VERSION) return version;
  }
  throw versionError(headerOrQueryValue.trim(), undefined);
}

/** The one value of a comma-joined repeat (`1.0, 1.0`), or the input unchanged when they differ. */
function sameRepeats(joined: string): string {
  const values = joined.split(',').map((v) => v.trim());
  const first = values[0] as string;
  return values.every((v) => v === first) ? first : joined;
}

function versionError(requested: string, why: string | undefined): VersionNotSupportedError {
  const supported = SUPPORTED_VERSIONS.join(',');
  const message = `${why ? why + '; ' : ''}A2A-Version ${quoteForMessage(requested)} is not supported (supported: ${supported})`;
  return new VersionNotSupportedError(message, { metadata: { supportedVersions: supported } });
}

/**
 * Reads the `A2A-Version` query parameter, matching its name case-insensitively (N8).
 * `query` is the raw query string without `?`.
 */
export function versionFromQuery(query: string): string | undefined {
  if (query === '') return undefined;
  const at = query.search(/(?:^|&)a2a-version=/i);
  if (at < 0) return undefined;
  const start = query.indexOf('=', at) + 1;
  let end = query.indexOf('&', start);
  if (end < 0) end = query.length;
  try {
    return decodeURIComponent(query.slice(start, end).replace(/\+/g, ' '));
  } catch {
    return query.slice(start, end);
  }
}

/**
 * The extension URIs a client asked for: comma-separated values, repeated headers merged,
 * whitespace trimmed, duplicates and empty entries dropped (SRV-EXT-2).
 */
export function parseExtensions(values: string | string[] | undefined): string[] {
  if (values === undefined) return [];
  const list = typeof values === 'string' ? [values] : values;
  const out: string[] = [];
  for (const value of list) {
    for (const raw of value.split(',')) {
      const uri = raw.trim();
      if (uri !== '' && !out.includes(uri)) out.push(uri);
    }
  }
  return out;
}

/**
 * Enforces the card's `required: true` extensions (SRV-EXT-3): each must be among `requested`,
 * else ExtensionSupportRequiredError with `metadata.extensions` (comma-separated URIs). Required
 * extensions that were requested are added to `activated`; other requested extensions are left
 * for the agent to activate (unsupported ones are ignored, SRV-EXT-4).
 */
export function checkRequiredExtensions(
  card: AgentCard,
  requested: readonly string[],
  activated: Set<string>,
): void {
  const declared = card.capabilities.extensions;
  if (!declared || declared.length === 0) return;
  let missing: string[] | undefined;
  for (const ext of declared) {
    if (!ext.required || !ext.uri) continue;
    if (requested.includes(ext.uri)) activated.add(ext.uri);
    else (missing ??= []).push(ext.uri);
  }
  if (missing) {
    throw new ExtensionSupportRequiredError(
      `The agent requires these extensions; request them in A2A-Extensions: ${missing.join(', ')}`,
      { metadata: { extensions: missing.join(',') } },
    );
  }
}

/** The service parameters of one HTTP request, read once by the JSON-RPC and REST bindings. */
export interface HttpServiceParams {
  /** The version the request is served with. */
  readonly version: string;
  /** Extension URIs the client requested. */
  readonly requestedExtensions: string[];
  /** The header name to echo activated extensions under (the one the client used). */
  readonly extensionsHeader: string;
}

/**
 * Reads `A2A-Version` (header, else query parameter) and `A2A-Extensions` (and its v0.3 alias
 * `X-A2A-Extensions`, repeated headers merged). Throws VersionNotSupportedError.
 */
export function readHttpServiceParams(
  req: HttpRequest,
  looksLikeV1: boolean,
  acceptDraft = false,
): HttpServiceParams {
  const version = resolveVersion(
    req.header(VERSION_HEADER) ?? versionFromQuery(req.query),
    looksLikeV1,
    acceptDraft,
  );
  const current = req.headerValues(EXTENSIONS_HEADER);
  const legacy = req.headerValues(LEGACY_EXTENSIONS_HEADER);
  if (current.length === 0 && legacy.length === 0) {
    return { version, requestedExtensions: [], extensionsHeader: EXTENSIONS_HEADER };
  }
  return {
    version,
    requestedExtensions: parseExtensions(legacy.length === 0 ? current : [...current, ...legacy]),
    extensionsHeader: current.length === 0 ? LEGACY_EXTENSIONS_HEADER : EXTENSIONS_HEADER,
  };
}

/**
 * True when `card` declares the a2a-kit generation extension, which a server does exactly when
 * its A2A 1.1 draft support is on (GEN-1): the bindings then accept `A2A-Version: 1.1`.
 */
export function offersDraft(card: AgentCard): boolean {
  return card.capabilities.extensions?.some((ext) => ext.uri === GENERATION_EXTENSION) === true;
}

/**
 * The call context field of a reconnecting stream's `Last-Event-ID` (GEN-5): set when the
 * header is a plausible id; the handler reads it only for a call that opted in to the draft.
 */
export function lastEventIdInit(value: string | undefined): { lastEventId?: string } {
  return value !== undefined && value.length > 0 && value.length <= 512 ? { lastEventId: value } : {};
}
