/**
 * Agent card discovery (spec §8): `/.well-known/agent-card.json` from a base URL (or a full
 * card URL), falling back to the v0.3 path `/.well-known/agent.json`; HTTP caching with
 * conditional GET (CLI-CARD-1); validation; an optional signature check (CLI-SIGN-1).
 */
import type { AgentCard } from '../model/schema.js';
import { parseJson } from '../bindings/http/decode.js';
import { A2ATimeoutError, A2ATransportError, networkCode } from '../errors/client-errors.js';
import { parseAgentCard } from '../bindings/card-parse.js';
import type { VerifiedCardJson } from './card-signature.js';
import { PROTOCOL_VERSION } from '../model/operations.js';

/** Path of the public card (spec §8.2). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/** Path where v0.3 agents served their card. */
export const LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

/** Options of {@link AgentCardResolver}. */
export interface CardResolverOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Headers sent when fetching cards. */
  headers?: Record<string, string>;
  /** Per-fetch timeout in ms. @default 15000 */
  timeoutMs?: number;
  /** How long a card without caching headers stays fresh, in ms. @default 300000 */
  defaultTtlMs?: number;
  /** Try `/.well-known/agent.json` when the v1.0 path answers 404. @default true */
  legacyFallback?: boolean;
  /**
   * Checks a card before it is trusted (e.g. its JWS signatures); throw to reject it.
   * Receives the validated card and the JSON exactly as parsed. A hook that checked a
   * signature returns the signed JSON ({@link VerifiedCardJson}, as `cardSignatureVerifier`
   * does): the card is then built from that alone and marked `verified` (CLI-SIGN-4).
   */
  verify?: (card: AgentCard, rawJson: unknown) => Promise<void | VerifiedCardJson>;
}

/** A resolved card and how it was obtained. */
export interface ResolvedCard {
  card: AgentCard;
  /** The URL the card was read from. */
  url: string;
  /** Human-readable remarks (legacy path, v0.3 card translated, ...). */
  notes: string[];
  /** `cache`: fresh in memory; `revalidated`: the server answered 304; `network`: fetched. */
  source: 'cache' | 'revalidated' | 'network';
  /**
   * True when the `verify` hook checked the card's signature and the card was built from the
   * signed payload only: the card's URLs (token URL, interfaces) are the signer's.
   */
  verified: boolean;
}

interface CacheEntry {
  resolved: ResolvedCard;
  etag?: string;
  lastModified?: string;
  expiresAt: number;
}

/** Fetches, validates and caches agent cards. One instance can serve many agents. */
export class AgentCardResolver {
  private readonly cache = new Map<string, CacheEntry>();
  constructor(private readonly options: CardResolverOptions = {}) {}

  /** Forgets cached cards. */
  clear(): void {
    this.cache.clear();
  }

  /** Resolves the card of the agent at `url` (a base URL or the card's own URL). */
  async resolve(
    url: string,
    options: { signal?: AbortSignal; noCache?: boolean } = {},
  ): Promise<ResolvedCard> {
    const cardUrl = cardUrlOf(url);
    try {
      return await this.resolveAt(cardUrl, [], options);
    } catch (error) {
      const isBase = cardUrl !== url.replace(/\/+$/, '') && cardUrl.endsWith(AGENT_CARD_PATH);
      if (
        this.options.legacyFallback !== false &&
        isBase &&
        error instanceof A2ATransportError &&
        error.status === 404
      ) {
        const legacy = cardUrl.slice(0, -AGENT_CARD_PATH.length) + LEGACY_AGENT_CARD_PATH;
        try {
          return await this.resolveAt(
            legacy,
            [`no card at ${cardUrl} (404); read the legacy v0.3 location ${LEGACY_AGENT_CARD_PATH} instead`],
            options,
          );
        } catch (legacyError) {
          if (!(legacyError instanceof A2ATransportError) || legacyError.status !== 404) throw legacyError;
          // Both paths are missing: say so, naming each one tried.
          throw new A2ATransportError(`no agent card: HTTP 404 at ${cardUrl} and at ${legacy}`, {
            status: 404,
            cause: legacyError,
          });
        }
      }
      throw error;
    }
  }

  private async resolveAt(
    cardUrl: string,
    notes: string[],
    options: { signal?: AbortSignal; noCache?: boolean },
  ): Promise<ResolvedCard> {
    const cached = this.cache.get(cardUrl);
    const now = Date.now();
    if (cached && !options.noCache && cached.expiresAt > now) {
      return { ...cached.resolved, source: 'cache' };
    }
    // Spec 3.6.1: A2A-Version on every request. A server that serves v0.3 and v1.0 at one URL
    // reads a missing header as v0.3 and would answer with its v0.3 card (issue 29).
    const headers: Record<string, string> = {
      accept: 'application/json',
      'a2a-version': PROTOCOL_VERSION,
      ...this.options.headers,
    };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
    // fetch adds `cache-control: no-cache` to conditional requests, which makes servers skip
    // the 304 (RFC 9111 §5.2.1.4); max-age=0 asks for the same revalidation and keeps it.
    if (cached?.etag || cached?.lastModified) headers['cache-control'] = 'max-age=0';
    const response = await this.fetch(cardUrl, headers, options.signal);
    if (response.status === 304 && cached) {
      await response.body?.cancel();
      const cache = cachePolicy(response.headers, this.options.defaultTtlMs ?? 300_000);
      cached.expiresAt = Date.now() + cache.ttlMs;
      return { ...cached.resolved, source: 'revalidated' };
    }
    const text = await response.text();
    if (!response.ok) {
      throw new A2ATransportError(`fetching the agent card ${cardUrl} failed: HTTP ${response.status}`, {
        status: response.status,
      });
    }
    const raw = parseJson(text, `agent card at ${cardUrl}`);
    const notesBefore = notes.length;
    let card = parseAgentCard(raw, cardUrl, notes);
    let verified = false;
    const checked = this.options.verify ? await this.options.verify(card, raw) : undefined;
    if (checked) {
      // Only what the signature covers: a field added to the served JSON after signing is gone.
      notes.length = notesBefore;
      card = parseAgentCard(checked.verifiedJson, cardUrl, notes);
      verified = true;
    }
    const resolved: ResolvedCard = { card, url: cardUrl, notes, source: 'network', verified };
    const cache = cachePolicy(response.headers, this.options.defaultTtlMs ?? 300_000);
    if (cache.store) {
      this.cache.set(cardUrl, {
        resolved,
        etag: response.headers.get('etag') ?? undefined,
        lastModified: response.headers.get('last-modified') ?? undefined,
        expiresAt: Date.now() + cache.ttlMs,
      });
    } else this.cache.delete(cardUrl);
    return resolved;
  }

  private async fetch(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await (this.options.fetch ?? globalThis.fetch)(url, {
        headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted)
        throw new A2ATimeoutError(`no agent card from ${url} within ${timeoutMs} ms`, timeoutMs);
      const code = networkCode(error);
      throw new A2ATransportError(`fetching the agent card ${url} failed: ${code ?? String(error)}`, {
        cause: error,
        networkCode: code,
      });
    }
  }
}

/** The card URL for `url`: itself when it already names a card, else `{base}/.well-known/agent-card.json`. */
export function cardUrlOf(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith('.json') || u.pathname.includes('/.well-known/')) return u.toString();
  return url.replace(/\/+$/, '') + AGENT_CARD_PATH;
}

function cachePolicy(headers: Headers, defaultTtlMs: number): { store: boolean; ttlMs: number } {
  const cc = (headers.get('cache-control') ?? '').toLowerCase();
  if (/\bno-store\b/.test(cc)) return { store: false, ttlMs: 0 };
  if (/\bno-cache\b/.test(cc)) return { store: true, ttlMs: 0 };
  const maxAge = /\bmax-age=(\d+)/.exec(cc);
  if (maxAge) return { store: true, ttlMs: Number(maxAge[1]) * 1000 };
  const expires = headers.get('expires');
  if (expires && !Number.isNaN(Date.parse(expires))) {
    return { store: true, ttlMs: Math.max(0, Date.parse(expires) - Date.now()) };
  }
  return { store: true, ttlMs: defaultTtlMs };
}
