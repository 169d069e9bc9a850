/**
 * An HTTP/1.1 response reader for webhook POSTs (see webhook-request.ts): fed the bytes of a
 * connection, it finds the final status (interim 1xx answers skipped), reads at most a capped
 * part of the body, and tells whether the connection may carry the next request (the body
 * framed by Content-Length or chunked and read to its end, no `Connection: close`).
 */

/** What the reader decided once the response is complete (or read far enough). */
export interface ResponseEnd {
  readonly status: number;
  /** The body's first bytes (at most the cap). */
  readonly excerpt: Buffer;
  /** True when the connection is left clean, ready for another request. */
  readonly reusable: boolean;
}

/** A response the reader refuses (not HTTP/1.x, a head over the limit, bad framing). */
export class ResponseFormatError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ResponseFormatError';
  }
}

/** Longest response head read (status line and headers), as node's default `maxHeaderSize`. */
const MAX_HEAD_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

/** Reads one response; {@link push} returns its end once known. */
export class Http1ResponseReader {
  readonly #maxBodyBytes: number;
  #buffer: Buffer = Buffer.alloc(0);
  #status = 0;
  #keepAlive = true;
  #framing: Framing | undefined;
  /** Bytes left in the current chunk (chunked), or -1 while a chunk-size line is awaited. */
  #chunkLeft = -1;
  /** After the last chunk: reading trailers until an empty line. */
  #trailers = false;
  readonly #body: Buffer[] = [];
  #bodyBytes = 0;

  constructor(maxBodyBytes: number) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Feeds bytes; the end once the response is complete or the cap is reached, else undefined. */
  push(chunk: Buffer): ResponseEnd | undefined {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#framing === undefined) {
      if (!this.#readHead()) return undefined;
    }
    return this.#readBody();
  }

  /** The connection ended: the end when the body runs to the close, else undefined (cut short). */
  closed(): ResponseEnd | undefined {
    if (this.#framing?.kind !== 'close') return undefined;
    return this.#end(false);
  }

  /** Parses a head from the buffer; false when it is not all there yet. */
  #readHead(): boolean {
    const at = this.#buffer.indexOf(HEAD_END);
    if (at < 0) {
      if (this.#buffer.length > MAX_HEAD_BYTES) {
        throw new ResponseFormatError('the response head is too long', 'HPE_HEADER_OVERFLOW');
      }
      return false;
    }
    if (at > MAX_HEAD_BYTES)
      throw new ResponseFormatError('the response head is too long', 'HPE_HEADER_OVERFLOW');
    const lines = this.#buffer.subarray(0, at).toString('latin1').split('\r\n');
    this.#buffer = this.#buffer.subarray(at + HEAD_END.length);
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!statusLine)
      throw new ResponseFormatError('the answer is not an HTTP/1.x response', 'HPE_INVALID_CONSTANT');
    const status = Number(statusLine[2]);
    let length: number | undefined;
    let chunked = false;
    let close = statusLine[1] === '0';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0)
        throw new ResponseFormatError('a response header line is malformed', 'HPE_INVALID_HEADER_TOKEN');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== Number(value))) {
          throw new ResponseFormatError('the Content-Length is malformed', 'HPE_INVALID_CONTENT_LENGTH');
        }
        length = Number(value);
      } else if (name === 'transfer-encoding') {
        chunked = value.split(',').pop()!.trim() === 'chunked';
        if (!chunked) close = true; // another coding: the body runs to the close
      } else if (name === 'connection') {
        const options = value.split(',').map((o) => o.trim());
        if (options.includes('close')) close = true;
        if (statusLine[1] === '0' && options.includes('keep-alive')) close = false;
      }
    }
    // An interim answer (100 Continue, 103 Early Hints): the final one follows.
    if (status >= 100 && status < 200 && status !== 101) return true;
    this.#status = status;
    this.#keepAlive = !close && status !== 101;
    if (status === 101) this.#framing = { kind: 'none' };
    else if (status === 204 || status === 304) this.#framing = { kind: 'none' };
    else if (chunked) this.#framing = { kind: 'chunked' };
    else if (length !== undefined)
      this.#framing = length === 0 ? { kind: 'none' } : { kind: 'length', left: length };
    else this.#framing = { kind: 'close' };
    return true;
  }

  #readBody(): ResponseEnd | undefined {
    const framing = this.#framing!;
    switch (framing.kind) {
      case 'none':
        return this.#end(this.#keepAlive && this.#buffer.length === 0);
      case 'length': {
        const take = Math.min(framing.left, this.#buffer.length);
        if (this.#keep(this.#buffer.subarray(0, take))) return this.#end(false);
        this.#buffer = this.#buffer.subarray(take);
        framing.left -= take;
        if (framing.left > 0) return undefined;
        return this.#end(this.#keepAlive && this.#buffer.length === 0);
      }
      case 'chunked':
        return this.#readChunks();
      case 'close':
        if (this.#keep(this.#buffer)) return this.#end(false);
        this.#buffer = Buffer.alloc(0);
        return undefined;
    }
  }

  #readChunks(): ResponseEnd | undefined {
    for (;;) {
      if (this.#trailers) {
        const at = this.#buffer.indexOf(CRLF);
        if (at < 0) return undefined;
        this.#buffer = this.#buffer.subarray(at + CRLF.length);
        if (at === 0) return this.#end(this.#keepAlive && this.#buffer.length === 0);
        continue;
      }
      if (this.#chunkLeft < 0) {
        const at = this.#buffer.indexOf(CRLF);
        if (at < 0) {
          if (this.#buffer.length > 1024)
            throw new ResponseFormatError('a chunk size line is too long', 'HPE_INVALID_CHUNK_SIZE');
          return undefined;
        }
        const size = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(this.#buffer.subarray(0, at).toString('latin1'));
        if (!size) throw new ResponseFormatError('a chunk size is malformed', 'HPE_INVALID_CHUNK_SIZE');
        this.#buffer = this.#buffer.subarray(at + CRLF.length);
        const n = parseInt(size[1]!, 16);
        if (n === 0) {
          this.#trailers = true;
          continue;
        }
        this.#chunkLeft = n + CRLF.length; // the data and its CRLF
      }
      const take = Math.min(this.#chunkLeft, this.#buffer.length);
      if (take === 0) return undefined;
      const data = this.#buffer.subarray(0, Math.min(take, Math.max(this.#chunkLeft - CRLF.length, 0)));
      if (this.#keep(data)) return this.#end(false);
      this.#buffer = this.#buffer.subarray(take);
      this.#chunkLeft -= take;
      if (this.#chunkLeft > 0) return undefined;
      this.#chunkLeft = -1;
    }
  }

  /** Keeps body bytes up to the cap; true once the body goes beyond it (read no further). */
  #keep(data: Buffer): boolean {
    if (data.length === 0) return false;
    const room = this.#maxBodyBytes - this.#bodyBytes;
    if (room > 0) this.#body.push(data.subarray(0, room));
    this.#bodyBytes += data.length;
    return this.#bodyBytes > this.#maxBodyBytes;
  }

  #end(reusable: boolean): ResponseEnd {
    return { status: this.#status, excerpt: Buffer.concat(this.#body), reusable };
  }
}
