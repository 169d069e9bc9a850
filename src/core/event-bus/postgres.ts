/**
 * An {@link EventBus} across replicas on PostgreSQL LISTEN/NOTIFY. Subscribers in this process
 * get each event at once (as with the in-process bus); other replicas get it through one
 * NOTIFY on a channel of the database. A body larger than a NOTIFY payload may be is written
 * to `a2a_events` in the same statement and fetched by its seq on the receiving side.
 *
 * Order: a task's events are published one after another (the TaskManager awaits each), and
 * PostgreSQL delivers notifications in commit order, so every replica sees a task's events in
 * publish order. Notifications are handled strictly in arrival order, even while one waits
 * for a body to be fetched. The listening connection reconnects with backoff when it is lost;
 * events published while it was down are not replayed (streams then see the next ones).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PostgresDatabase } from '../stores/postgres/database.js';
import type { EventBus, TaskEvent, TaskEventListener, TaskTopic } from './event-bus.js';
import { InProcessEventBus } from './in-process.js';

/** NOTIFY payloads must stay under 8000 bytes; keep a margin for the envelope. */
const MAX_INLINE_BYTES = 7_000;
/** How long large bodies stay in a2a_events (a receiver fetches within milliseconds). */
const EVENT_BODY_TTL_MS = 10 * 60_000;
/** Most notifications waiting to be handled; past it the oldest are dropped (bounded memory). */
const MAX_INBOX = 10_000;

/** What travels in one notification. */
interface Envelope {
  /** Origin bus (its own notifications are skipped: local subscribers already have them). */
  readonly o: string;
  /** Tenant and task id of the topic. */
  readonly t: string;
  readonly k: string;
  /** The event, or the seq of its body in a2a_events. */
  readonly e?: TaskEvent;
  readonly r?: string;
}

/** Options of {@link PostgresEventBus}. */
export interface PostgresEventBusOptions {
  /**
   * The NOTIFY channel; replicas that should see each other's events use the same one.
   * @default `a2a_events`, suffixed with the database's schema when it has one
   */
  channel?: string;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** An {@link EventBus} shared by every replica on one PostgreSQL database. */
export class PostgresEventBus implements EventBus {
  readonly #database: PostgresDatabase;
  readonly #channel: string;
  readonly #origin = randomUUID();
  readonly #local = new InProcessEventBus();
  /** Subscribed topics with their listener counts, by `tenant NUL taskId`. */
  readonly #topics = new Map<string, number>();
  #client: pg.Client | undefined;
  #closed = false;
  #inbox: Envelope[] = [];
  #draining = false;
  #bodiesWritten = 0;
  /** Settles once LISTEN is in place (or failed). */
  readonly ready: Promise<void>;
  readonly spansProcesses = true;

  constructor(database: PostgresDatabase, options: PostgresEventBusOptions = {}) {
    this.#database = database;
    database.retain();
    this.#channel =
      options.channel ?? `a2a_events${database.schema ? `_${database.schema.toLowerCase()}` : ''}`;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.#channel)) {
      throw new Error(`NOTIFY channel ${JSON.stringify(this.#channel)} must be lowercase letters, digits, _`);
    }
    this.ready = database.ready.then(() => this.#listen());
    this.ready.catch(() => {});
  }

  async #listen(): Promise<void> {
    const client = this.#database.newClient();
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#receive(message.payload);
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    await client.connect();
    await client.query(`LISTEN ${this.#channel}`);
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
  }

  /** The listening connection went away: reconnect with backoff until closed. */
  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = undefined;
    void client.end().catch(() => {});
    void (async () => {
      for (let attempt = 0; !this.#closed; attempt++) {
        await delay(Math.min(100 * 2 ** attempt, 5_000));
        if (this.#closed) return;
        try {
          await this.#listen();
          return;
        } catch {
          // try again
        }
      }
    })();
  }

  publish(topic: TaskTopic, event: TaskEvent): Promise<void> {
    this.#local.publish(topic, event);
    const inline: Envelope = { o: this.#origin, t: topic.tenant, k: topic.taskId, e: event };
    const payload = JSON.stringify(inline);
    if (Buffer.byteLength(payload) <= MAX_INLINE_BYTES) {
      const sql = 'SELECT pg_notify($1, $2)';
      const params = [this.#channel, payload];
      return this.#send(sql, params);
    }
    // The body goes to a2a_events and the notification names its seq, in one statement.
    const now = Date.now();
    const head = JSON.stringify({ o: this.#origin, t: topic.tenant, k: topic.taskId });
    const sql = `WITH body AS (INSERT INTO a2a_events (created_ms, payload) VALUES ($1, $2) RETURNING seq)
      SELECT pg_notify($3, left($4, -1) || ',"r":"' || seq || '"}') FROM body`;
    const sent = this.#send(sql, [now, JSON.stringify(event), this.#channel, head]);
    if (++this.#bodiesWritten % 100 === 0) {
      void this.#database
        .query('DELETE FROM a2a_events WHERE created_ms < $1', [now - EVENT_BODY_TTL_MS])
        .catch(() => {});
    }
    return sent;
  }

  /** Sends a notification through the write queue (one transaction with others queued now). */
  async #send(sql: string, params: unknown[]): Promise<void> {
    await this.#database.write({
      sql,
      params,
      done: () => undefined,
      // A repeated notification is harmless: subscribers skip versions they have.
      alone: async () => {
        await this.#database.query(sql, params);
      },
    });
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const key = `${topic.tenant}\u0000${topic.taskId}`;
    this.#topics.set(key, (this.#topics.get(key) ?? 0) + 1);
    const unsubscribe = this.#local.subscribe(topic, listener);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      unsubscribe();
      const left = (this.#topics.get(key) ?? 1) - 1;
      if (left === 0) this.#topics.delete(key);
      else this.#topics.set(key, left);
    };
  }

  #receive(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (envelope.o === this.#origin || !this.#topics.has(`${envelope.t}\u0000${envelope.k}`)) return;
    if (this.#inbox.length >= MAX_INBOX) this.#inbox.shift();
    this.#inbox.push(envelope);
    if (!this.#draining) void this.#drain();
  }

  /** Delivers queued notifications in arrival order; waits only for bodies to be fetched. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#inbox.length > 0 && !this.#closed) {
        const envelope = this.#inbox.shift()!;
        let event = envelope.e;
        if (!event && envelope.r !== undefined) {
          try {
            const { rows } = await this.#database.query<{ payload: string }>(
              'SELECT payload FROM a2a_events WHERE seq = $1',
              [envelope.r],
            );
            if (rows[0]) event = JSON.parse(rows[0].payload) as TaskEvent;
          } catch {
            // Body gone or unreadable: the stream sees the next event (its version tells).
          }
        }
        if (event) this.#local.publish({ tenant: envelope.t, taskId: envelope.k }, event);
      }
    } finally {
      this.#draining = false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
    await this.#database.release();
  }
}
