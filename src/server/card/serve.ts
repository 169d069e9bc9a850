/**
 * Serving the public card at `/.well-known/agent-card.json` (SRV-CARD-1, 9, 10): bytes
 * precomputed once, a strong ETag from the content hash, `Last-Modified` (spec 8.6.1),
 * `Cache-Control: max-age`, and 304 for a matching `If-None-Match` or, without one, an
 * `If-Modified-Since` not before the card's date (RFC 9110 13.1.3). No A2A-Version check (D25).
 */
import { createHash } from 'node:crypto';
import type { AgentCard } from '../../model/schema.js';
import type { HttpReply } from '../../bindings/http/http-body.js';

/** Default `max-age` of the card, in seconds. */
export const CARD_MAX_AGE_SECONDS = 300;

/** A card ready to serve: its bytes and validators. */
export class CardResource {
  /** The serialized card. */
  readonly body: Buffer;
  /** Strong ETag: a quoted hash of the bytes. */
  readonly etag: string;
  /** `Last-Modified` (an HTTP date, whole seconds). */
  readonly lastModified: string;
  private readonly modifiedSeconds: number;
  private readonly headers: Record<string, string>;

  /**
   * `modifiedAt` is when this content was built; it stays the same for the card's lifetime.
   * `fromRequest`: the card's URLs come from the request's Host (no configured URL): it is
   * then served with `Vary: Host` and only private caching, so that no shared cache hands one
   * caller's Host-derived card to another (SRV-TRUST-6).
   */
  constructor(
    readonly card: AgentCard,
    modifiedAt: Date = new Date(),
    maxAgeSeconds = CARD_MAX_AGE_SECONDS,
    readonly fromRequest = false,
  ) {
    this.body = Buffer.from(JSON.stringify(card));
    this.etag = '"' + createHash('sha256').update(this.body).digest('base64url').slice(0, 32) + '"';
    this.modifiedSeconds = Math.floor(modifiedAt.getTime() / 1000);
    this.lastModified = new Date(this.modifiedSeconds * 1000).toUTCString();
    this.headers = {
      'content-type': 'application/json',
      'cache-control': `${fromRequest ? 'private' : 'public'}, max-age=${maxAgeSeconds}`,
      etag: this.etag,
      'last-modified': this.lastModified,
      'access-control-allow-origin': '*',
      ...(fromRequest ? { vary: 'Host' } : {}),
    };
  }

  /**
   * Answers GET/HEAD (others: 405), honouring `If-None-Match`, else `If-Modified-Since`
   * (ignored when If-None-Match is present or the date does not parse).
   */
  reply(method: string, ifNoneMatch: string | undefined, ifModifiedSince?: string): HttpReply {
    if (method !== 'GET' && method !== 'HEAD') {
      return {
        status: 405,
        headers: { allow: 'GET, HEAD', 'content-type': 'application/json' },
        body: '{"error":{"code":405,"status":"UNIMPLEMENTED","message":"The agent card is read with GET"}}',
      };
    }
    if (
      ifNoneMatch !== undefined ? etagMatches(ifNoneMatch, this.etag) : this.notModifiedSince(ifModifiedSince)
    ) {
      return {
        status: 304,
        headers: {
          etag: this.etag,
          'last-modified': this.lastModified,
          'cache-control': this.headers['cache-control'] as string,
          'access-control-allow-origin': '*',
          ...(this.fromRequest ? { vary: 'Host' } : {}),
        },
      };
    }
    return { status: 200, headers: { ...this.headers }, ...(method === 'GET' ? { body: this.body } : {}) };
  }

  private notModifiedSince(header: string | undefined): boolean {
    if (header === undefined) return false;
    const since = Date.parse(header);
    return !Number.isNaN(since) && this.modifiedSeconds <= Math.floor(since / 1000);
  }
}

/** RFC 9110 weak comparison of `If-None-Match` against our ETag (`*` matches). */
export function etagMatches(header: string, etag: string): boolean {
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}
