/**
 * The outgoing side of the PostgreSQL event bus: the events published while a write batch is
 * being gathered travel in as few NOTIFYs as fit, each carrying several envelopes. One NOTIFY
 * per event cost every replica a notification to queue, signal and read per event (three per
 * short task); packed, a busy replica sends about one per batch.
 *
 * A payload is `<origin>\n[<envelope>,...]`: the origin first, so a replica skips its own
 * notifications without parsing them.
 *
 * Order: PostgreSQL delivers notifications in commit order, and two batches may commit on two
 * connections in either order. So the packs go one after another: the next is handed to the
 * database once the one before has committed (or failed), and the events published meanwhile
 * join it. A publisher need not wait for its NOTIFY to keep its task's events in order, which
 * before cost each event of a task one transaction of its own.
 */
import type { BatchedWrite, PostgresDatabase } from '../stores/postgres/database.js';

/** NOTIFY payloads must stay under 8000 bytes; keep a margin. */
export const MAX_PACK_BYTES = 7_000;

/**
 * Packs waiting for the one being sent, at most: past this, a publisher waits for its pack to
 * be sent (bounded memory: about this many times {@link MAX_PACK_BYTES}).
 */
const MAX_WAITING_PACKS = 64;

/** One NOTIFY: envelopes joined, or an oversize body written to `a2a_events` and named. */
interface Pack {
  /** The envelopes' JSON, in publish order (empty for a body). */
  readonly parts: string[];
  bytes: number;
  /** Set for a body: its statement and parameters. */
  readonly body?: { readonly sql: string; readonly params: unknown[] };
  /** No more envelopes join it: its batch was sent, or it is a body. */
  sealed: boolean;
  readonly sent: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** Packs of envelopes, sent one after another in publish order. */
export class NotificationPacks {
  /** The pack being sent first, then those waiting, in order. */
  #packs: Pack[] = [];
  #sending = false;
  #closing = false;
  /** Settles once no pack is left (see {@link close}). */
  #idle: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly channel: string,
    private readonly origin: string,
  ) {}

  /**
   * Sends `envelope` (JSON of at most {@link MAX_PACK_BYTES} bytes) in the next pack. Returns
   * nothing when the caller need not wait (order is kept here), else the pack's promise.
   */
  send(envelope: string, bytes: number): Promise<void> | undefined {
    const last = this.#packs.at(-1);
    if (last && !last.sealed && last.bytes + bytes + 1 <= MAX_PACK_BYTES) {
      last.parts.push(envelope);
      last.bytes += bytes + 1;
      return this.#backpressure(last);
    }
    return this.#add([envelope], this.origin.length + 3 + bytes);
  }

  /** Sends a body statement (`sql`, `params`: it writes the body and NOTIFYs its seq) in order. */
  sendBody(sql: string, params: unknown[]): Promise<void> | undefined {
    return this.#add([], 0, { sql, params });
  }

  /**
   * Resolves once every pack handed in so far was sent (or failed); after a failure while
   * closing, the packs still waiting fail at once.
   */
  close(): Promise<void> {
    this.#closing = true;
    if (this.#packs.length === 0) return Promise.resolve();
    if (!this.#idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#idle = { promise, resolve };
    }
    return this.#idle.promise;
  }

  #add(parts: string[], bytes: number, body?: Pack['body']): Promise<void> | undefined {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const sent = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Observed here: a failed NOTIFY loses live events only (the changes are in the store).
    sent.catch(() => {});
    const pack: Pack = {
      parts,
      bytes,
      sealed: body !== undefined,
      sent,
      resolve,
      reject,
      ...(body ? { body } : {}),
    };
    this.#packs.push(pack);
    if (!this.#sending) this.#sendNext();
    return this.#backpressure(pack);
  }

  #backpressure(pack: Pack): Promise<void> | undefined {
    return this.#packs.length > MAX_WAITING_PACKS ? pack.sent : undefined;
  }

  #sendNext(): void {
    const pack = this.#packs[0];
    if (!pack) {
      this.#sending = false;
      const idle = this.#idle;
      this.#idle = undefined;
      idle?.resolve();
      return;
    }
    this.#sending = true;
    const settle = (error?: unknown): void => {
      this.#packs.shift();
      if (error === undefined) pack.resolve();
      else {
        pack.reject(error);
        // Closing and failing: the rest would each wait out the retries too.
        if (this.#closing) for (const rest of this.#packs.splice(0)) rest.reject(error);
      }
      this.#sendNext();
    };
    const sent = pack.body
      ? this.database.writeRepeatable(pack.body.sql, pack.body.params)
      : this.database.write(this.#notifyWrite(pack));
    sent.then(() => settle(), settle);
  }

  /** The NOTIFY of a pack of envelopes, sealed when its batch is sent. */
  #notifyWrite(pack: Pack): BatchedWrite<void> {
    const database = this.database;
    let payload: string | undefined;
    const seal = (): string => {
      // Read when the batch is sent: later envelopes start a new pack.
      pack.sealed = true;
      return (payload ??= `${this.origin}\n[${pack.parts.join(',')}]`);
    };
    const sql = 'SELECT pg_notify($1, $2)';
    const channel = this.channel;
    return {
      sql,
      get params() {
        return [channel, seal()];
      },
      done: () => undefined,
      // A repeated notification is harmless: subscribers skip versions they have.
      alone: async () => {
        await database.query(sql, [channel, seal()]);
      },
    };
  }
}
