import { randomFillSync } from 'node:crypto';

/** Random bytes for ids, refilled 256 ids at a time (one call into the CSPRNG per refill). */
const pool = Buffer.alloc(10 * 256);
let poolAt = pool.length;

/** The id being written: 36 ASCII bytes, hyphens in place. */
const text = Buffer.alloc(36, '-');
/** Where each of the 16 bytes' two hex digits go in {@link text}. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The two ASCII hex digits of each byte value. */
const HEX = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  HEX[2 * i] = '0123456789abcdef'.charCodeAt(i >> 4);
  HEX[2 * i + 1] = '0123456789abcdef'.charCodeAt(i & 15);
}

function put(index: number, byte: number): void {
  const at = AT[index]!;
  text[at] = HEX[2 * byte]!;
  text[at + 1] = HEX[2 * byte + 1]!;
}

/**
 * A new server-minted id (task, context, push config): a UUID version 7 (RFC 9562; G16). Its
 * first 48 bits are the creation time in ms and the rest is random (74 bits), so ids minted
 * one after another sort together: a durable store's indexes on them grow at one end instead
 * of touching a random page per new task. The creation time they show is in the task anyway.
 *
 * Written here rather than with the `uuid` package: its v7 cost two to three times as much CPU
 * and allocated about 1 KB per id (a request mints two), where this writes the digits into one
 * buffer and makes the string from it (flat, one byte per character).
 */
export function newId(): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const r = poolAt;
  poolAt += 10;
  const ms = Date.now();
  // 48-bit big-endian time: the top 16 bits by division (beyond 32-bit operators), the rest by shifts.
  const high = Math.floor(ms / 2 ** 32);
  put(0, (high >>> 8) & 0xff);
  put(1, high & 0xff);
  put(2, (ms >>> 24) & 0xff);
  put(3, (ms >>> 16) & 0xff);
  put(4, (ms >>> 8) & 0xff);
  put(5, ms & 0xff);
  put(6, 0x70 | (pool[r]! & 0x0f)); // version 7, then 12 random bits (rand_a)
  put(7, pool[r + 1]!);
  put(8, 0x80 | (pool[r + 2]! & 0x3f)); // variant 10, then 62 random bits (rand_b)
  for (let i = 3; i < 10; i++) put(6 + i, pool[r + i]!);
  return text.toString('latin1', 0, 36);
}

/** Longest id a client may send (messageId, taskId, contextId, config id). */
export const MAX_ID_LENGTH = 256;
