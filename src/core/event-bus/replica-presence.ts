/**
 * Whether any other process listens on a PostgreSQL event bus's channel. A replica that is
 * alone on it need not NOTIFY its events: nobody would read them, yet each NOTIFY costs
 * PostgreSQL a queue write under a database-wide lock and the replica a statement.
 *
 * The check reads `pg_stat_activity`: a listening connection (this a2a-kit's, an older one's,
 * a psql running LISTEN) runs nothing after its `LISTEN <channel>`, so that is its query.
 * The replica counts itself alone only when it sees its own listener there and no other,
 * and no session whose query it may not read; anything else (another role's sessions,
 * `track_activities` off) means "not alone": it sends everything.
 *
 * A listener that starts after the last check is not missed: it announces itself with a
 * hello on the channel (see PostgresEventBus), which makes every replica that was alone
 * share again at once and answer with a catch-up request. What it published while alone is
 * in the store (events are published after they are persisted), so the newcomer's
 * subscribers read it back from there, as after a lost connection. So only a bus that can read
 * tasks back (it has `readTask`) ever counts itself alone.
 */
import type { PostgresDatabase } from '../stores/postgres/database.js';

/** How often the listeners on the channel are counted. */
export const PRESENCE_INTERVAL_MS = 2_000;

/** Counts the listeners of `channel`: this process's (`pid`), others', and unreadable sessions. */
const LISTENERS_SQL = `SELECT
    count(*) FILTER (WHERE pid = $1 AND lower(btrim(query)) = $2)::int AS mine,
    count(*) FILTER (WHERE pid <> $1 AND lower(btrim(query)) = $2)::int AS others,
    count(*) FILTER (WHERE query = '<insufficient privilege>')::int AS hidden
  FROM pg_stat_activity WHERE datname = current_database()`;

/** Whether the replica is alone on its channel, checked every `intervalMs`. */
export class ReplicaPresence {
  #alone = false;
  /** Bumped whenever "alone" stops being true: a count started before it is stale. */
  #epoch = 0;
  #timer: NodeJS.Timeout | undefined;
  #listenerPid: number | undefined;
  #checking = false;

  /**
   * @param shared called when the replica stops being alone: other replicas may have
   * missed its events (the bus asks them to catch up).
   */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly channel: string,
    private readonly intervalMs: number,
    private readonly shared: () => void,
  ) {}

  /** True when nobody else listens: events need not be sent. */
  get alone(): boolean {
    return this.#alone;
  }

  /** The listening connection (backend `pid`) is in place (again): count now, then every interval. */
  listening(pid: number | undefined): void {
    this.#listenerPid = pid;
    if (pid === undefined) return;
    void this.#check();
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.#check(), this.intervalMs);
    this.#timer.unref();
  }

  /** Another listener announced itself, or this replica's listener was lost: not alone. */
  notAlone(): void {
    this.#epoch++;
    if (!this.#alone) return;
    this.#alone = false;
    this.shared();
  }

  /** The listener is gone: counting stops until it is back (a count would not see it). */
  lost(): void {
    this.#listenerPid = undefined;
    this.notAlone();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listenerPid = undefined;
    this.#epoch++;
    this.#alone = false;
  }

  async #check(): Promise<void> {
    const pid = this.#listenerPid;
    if (pid === undefined || this.#checking) return;
    this.#checking = true;
    const epoch = this.#epoch;
    try {
      const { rows } = await this.database.query<{ mine: number; others: number; hidden: number }>(
        LISTENERS_SQL,
        [pid, `listen ${this.channel}`],
      );
      // A hello, or the listener lost, while counting: the count may be stale.
      if (epoch !== this.#epoch || pid !== this.#listenerPid) return;
      const row = rows[0];
      const alone = row !== undefined && row.mine === 1 && row.others === 0 && row.hidden === 0;
      if (alone) this.#alone = true;
      else this.notAlone();
    } catch {
      // Unknown: keep sending (not alone).
      this.notAlone();
    } finally {
      this.#checking = false;
    }
  }
}
