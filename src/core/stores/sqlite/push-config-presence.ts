/**
 * Whether a SQLite file holds any push config: the one cached check that lets a server with
 * push on, and no config on any task (most servers, most of the time), skip the outbox's work per
 * event (serialising the event as a payload, reading the task's configs).
 */
import type { Database, Statement } from 'better-sqlite3';

/**
 * The answer is kept until it may have changed: this connection adds a config (true at once,
 * before the insert is even queued), removes one (counted again after the delete ran), a batch
 * is rolled back, or another connection committed anything (SQLite's `data_version` moved).
 * While an add of this connection is queued the answer stays true, whatever a count would say:
 * a count made before its insert ran would otherwise drop the payloads of the events after it.
 *
 * `data_version` is read once between two batches of this connection, not once per event: in a
 * busy server the read was about 4% of the CPU (three events a task). An event staged meanwhile
 * is written in the next batch, so it may miss a config another connection committed since the
 * last batch began, as it may miss one committed between its staging and that batch anyway.
 */
export class PushConfigPresence {
  #any: boolean | undefined;
  /** Adds of this connection whose write has not settled yet. */
  #pendingAdds = 0;
  #dataVersion: unknown;
  /** Whether `data_version` was read since this connection's last batch began. */
  #versionRead = false;
  #statements: { readonly any: Statement; readonly dataVersion: Statement } | undefined;

  constructor(private readonly db: Database) {}

  /** False only when the file holds no push config (so no event needs a notification). */
  mayExist(): boolean {
    // Prepared on first use: the table exists once the migrations ran.
    const statements = (this.#statements ??= {
      any: this.db.prepare('SELECT EXISTS (SELECT 1 FROM a2a_push_configs)').pluck(),
      dataVersion: this.db.prepare('PRAGMA data_version').pluck(),
    });
    if (!this.#versionRead) {
      this.#versionRead = true;
      const dataVersion = statements.dataVersion.get();
      if (dataVersion !== this.#dataVersion) {
        this.#dataVersion = dataVersion;
        this.#any = undefined;
      }
    }
    this.#any ??= this.#pendingAdds > 0 || statements.any.get() === 1;
    return this.#any;
  }

  /** A config is about to be written on this connection: call `settled` once its write settled. */
  added(): () => void {
    this.#any = true;
    this.#pendingAdds++;
    return () => void this.#pendingAdds--;
  }

  /** Configs were deleted on this connection (called after the delete ran): count again. */
  removed(): void {
    this.#any = undefined;
  }

  /** A batch of this connection begins: the next check reads `data_version` again. */
  batchBegins(): void {
    this.#versionRead = false;
  }

  /** A batch was rolled back: what this connection wrote is undone, so count again. */
  reset(): void {
    this.#any = undefined;
  }
}
