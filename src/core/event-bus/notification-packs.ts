/**
 * The outgoing side of the PostgreSQL event bus: the events published while a write batch is
 * being gathered travel in as few NOTIFYs as fit, each carrying several envelopes. One NOTIFY
 * per event cost every replica a notification to queue, signal and read per event (three per
 * short task); packed, a busy replica sends about one per batch.
 *
 * A payload is `<origin>\n[<envelope>,...]`: the origin first, so a replica skips its own
 * notifications without parsing them.
 */
import type { BatchedWrite, PostgresDatabase } from '../stores/postgres/database.js';

/** NOTIFY payloads must stay under 8000 bytes; keep a margin. */
export const MAX_PACK_BYTES = 7_000;

interface OpenPack {
  /** The envelopes' JSON, in publish order. */
  readonly parts: string[];
  bytes: number;
  readonly sent: Promise<void>;
}

/** Packs of envelopes not yet sent, joined while their write batch has not been sent. */
export class NotificationPacks {
  #open: OpenPack | undefined;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly channel: string,
    private readonly origin: string,
  ) {}

  /**
   * Sends `envelope` (JSON of at most {@link MAX_PACK_BYTES} bytes) in the next pack; resolves
   * once its NOTIFY committed.
   */
  send(envelope: string, bytes: number): Promise<void> {
    const open = this.#open;
    if (open && open.bytes + bytes + 1 <= MAX_PACK_BYTES) {
      open.parts.push(envelope);
      open.bytes += bytes + 1;
      return open.sent;
    }
    const parts = [envelope];
    let payload: string | undefined;
    const seal = (): string => {
      // Read when the batch is sent: later envelopes start a new pack.
      if (this.#open === pack) this.#open = undefined;
      return (payload ??= `${this.origin}\n[${parts.join(',')}]`);
    };
    const sql = 'SELECT pg_notify($1, $2)';
    const channel = this.channel;
    const database = this.database;
    const write: BatchedWrite<void> = {
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
    const pack: OpenPack = {
      parts,
      bytes: this.origin.length + 3 + bytes,
      sent: database.write(write),
    };
    this.#open = pack;
    return pack.sent;
  }
}
