/**
 * An {@link EventBus} across replicas on PostgreSQL LISTEN/NOTIFY. Subscribers in this process
 * get each event at once (as with the in-process bus); other replicas get it through a NOTIFY
 * on a channel of the database, which carries every event published while one write batch was
 * gathered (see NotificationPacks). A body larger than a NOTIFY payload may be is written to
 * `a2a_events` in the same statement and fetched by its seq on the receiving side.
 *
 * Order: a task's events are published one after another, the packs carrying them commit one
 * after another (see NotificationPacks), and PostgreSQL delivers notifications in commit
 * order, so every replica sees a task's events in publish order. Notifications are handled
 * strictly in arrival order, even while one waits for a body to be fetched.
 *
 * Alone: a replica with no other listener on its channel sends nothing (see ReplicaPresence).
 *
 * Catching up: the listening connection reconnects with backoff when it is lost. Once LISTEN
 * is back, every subscribed task whose owner is known is read again from the store and, when
 * it moved past the last version delivered here, its subscribers get the stored task as one
 * `task` event (after what was received before the loss, before what arrives after), so a
 * stream ends with the task's state and every artifact, without a gap or a repeat (streams
 * skip versions they have). The same catch-up follows a dropped backlog (more notifications
 * waiting than the bound) and a large body that could not be fetched.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PostgresDatabase } from '../stores/postgres/database.js';
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import type { EventBus, TaskEvent, TaskEventListener, TaskTopic } from './event-bus.js';
import { InProcessEventBus } from './in-process.js';
import { MAX_PACK_BYTES, NotificationPacks } from './notification-packs.js';
import { PRESENCE_INTERVAL_MS, ReplicaPresence } from './replica-presence.js';

/** How long large bodies stay in a2a_events (a receiver fetches within milliseconds). */
const EVENT_BODY_TTL_MS = 10 * 60_000;
/** Most notifications waiting to be handled; past it they are dropped for a catch-up (bounded memory). */
const MAX_INBOX = 10_000;
/** Tasks read at once during a catch-up. */
const CATCH_UP_CONCURRENCY = 8;

/** What travels in a notification for one event (several share one; see NotificationPacks). */
interface Envelope {
  /** Tenant and task id of the topic. */
  readonly t: string;
  readonly k: string;
  /** The event, or the seq of its body in a2a_events. */
  readonly e?: TaskEvent;
  readonly r?: string;
}

/** For the replicas (an older a2a-kit ignores it): `h` a listener's hello, `a: '*'` "catch up". */
interface Control {
  readonly h?: string;
  readonly a?: string;
}

/** An inbox entry asking to re-read subscribed tasks: all of them, or the one named by key. */
interface CatchUp {
  readonly catchUp: 'all' | string;
  /** Earlier failed tries of this catch-up (its backoff). */
  readonly attempt?: number;
}

type InboxItem = Envelope | CatchUp;

/** A subscribed topic: its listeners, an owner to read it by, the last version delivered here. */
interface TopicState {
  readonly tenant: string;
  readonly taskId: string;
  listeners: number;
  owner: string | undefined;
  version: number;
}

/** Options of {@link PostgresEventBus}. */
export interface PostgresEventBusOptions {
  /**
   * The NOTIFY channel; replicas that should see each other's events use the same one.
   * @default `a2a_events`, suffixed with the database's schema when it has one
   */
  channel?: string;
  /**
   * Reads a task from the store the events belong to; used to catch subscribers up after
   * notifications were missed (see the module comment). Without it nothing is re-read.
   */
  readTask?: (scope: TaskScope, taskId: string) => Promise<StoredTask | undefined>;
  /** How often the channel's listeners are counted (see ReplicaPresence). @default 2000 */
  presenceIntervalMs?: number;
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
  readonly #packs: NotificationPacks;
  readonly #presence: ReplicaPresence;
  readonly #readTask: PostgresEventBusOptions['readTask'];
  /** Subscribed topics, by `tenant NUL taskId`. */
  readonly #topics = new Map<string, TopicState>();
  #client: pg.Client | undefined;
  #closed = false;
  #inbox: InboxItem[] = [];
  /** A catch-up of every topic is in the inbox (one is enough). */
  #catchUpAllQueued = false;
  #draining = false;
  /** Connections lost since the bus started (for tests and diagnostics). */
  #reconnects = 0;
  #bodiesWritten = 0;
  /** Settles once LISTEN is in place (or failed). */
  readonly ready: Promise<void>;
  readonly spansProcesses = true;

  constructor(database: PostgresDatabase, options: PostgresEventBusOptions = {}) {
    this.#database = database;
    this.#readTask = options.readTask;
    database.retain();
    this.#channel =
      options.channel ?? `a2a_events${database.schema ? `_${database.schema.toLowerCase()}` : ''}`;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.#channel)) {
      throw new Error(`NOTIFY channel ${JSON.stringify(this.#channel)} must be lowercase letters, digits, _`);
    }
    this.#packs = new NotificationPacks(database, this.#channel, this.#origin);
    this.#presence = new ReplicaPresence(
      database,
      this.#channel,
      options.presenceIntervalMs ?? PRESENCE_INTERVAL_MS,
      () => this.#sendControl({ a: '*' }),
    );
    this.ready = database.ready.then(() => this.#listen());
    this.ready.catch(() => {});
  }

  /** True while no other listener is on the channel, so events are not sent (diagnostics). */
  get alone(): boolean {
    return this.#presence.alone;
  }

  /** How many times the listening connection was re-established. */
  get reconnects(): number {
    return this.#reconnects;
  }

  async #listen(): Promise<void> {
    // TCP keepalive: a connection that dies silently (no reset) is noticed, then re-made.
    const client = this.#database.newClient({ keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#receive(message.payload);
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    // Replicas that were alone send again from now on, and ask for a catch-up. Without
    // readTask what was not sent could not be caught up here: never alone.
    this.#sendControl({ h: this.#origin });
    if (this.#readTask) this.#presence.listening((client as unknown as { processID?: number }).processID);
  }

  /** Sends a control envelope (a hello, a catch-up request) on the channel. */
  #sendControl(control: Control): void {
    if (this.#closed) return;
    const inline = JSON.stringify(control);
    this.#packs.send(inline, Buffer.byteLength(inline));
  }

  /** The listening connection went away: reconnect with backoff until closed. */
  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = undefined;
    // A hello sent while nobody listened here would be missed: send everything meanwhile.
    this.#presence.lost();
    void client.end().catch(() => {});
    void (async () => {
      for (let attempt = 0; !this.#closed; attempt++) {
        await delay(Math.min(100 * 2 ** attempt, 5_000));
        if (this.#closed) return;
        try {
          await this.#listen();
          if (this.#closed) return;
          this.#reconnects++;
          // Whatever was published while nobody listened is read back from the store.
          this.#queueCatchUpAll();
          return;
        } catch {
          // try again
        }
      }
    })();
  }

  publish(topic: TaskTopic, event: TaskEvent): Promise<void> | undefined {
    this.#deliver(topic.tenant, event);
    if (this.#presence.alone) return undefined;
    const inline = JSON.stringify({ t: topic.tenant, k: topic.taskId, e: event });
    const bytes = Buffer.byteLength(inline);
    if (bytes <= MAX_PACK_BYTES - this.#origin.length - 3) return this.#packs.send(inline, bytes);
    // The body goes to a2a_events and the notification names its seq, in one statement.
    const now = Date.now();
    const head = `${this.#origin}\n[${JSON.stringify({ t: topic.tenant, k: topic.taskId })}`;
    const sql = `WITH body AS (INSERT INTO a2a_events (created_ms, payload) VALUES ($1, $2) RETURNING seq)
      SELECT pg_notify($3, left($4, -1) || ',"r":"' || seq || '"}]') FROM body`;
    // In order with the packs; a repeated notification is harmless (versions are skipped).
    const sent = this.#packs.sendBody(sql, [now, JSON.stringify(event), this.#channel, head]);
    if (++this.#bodiesWritten % 100 === 0) {
      void this.#database
        .query('DELETE FROM a2a_events WHERE created_ms < $1', [now - EVENT_BODY_TTL_MS])
        .catch(() => {});
    }
    return sent;
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const key = `${topic.tenant}\u0000${topic.taskId}`;
    let state = this.#topics.get(key);
    if (!state) {
      state = { tenant: topic.tenant, taskId: topic.taskId, listeners: 0, owner: undefined, version: 0 };
      this.#topics.set(key, state);
    }
    state.listeners++;
    state.owner ??= topic.owner;
    const unsubscribe = this.#local.subscribe(topic, listener);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      unsubscribe();
      const current = this.#topics.get(key);
      if (current && --current.listeners === 0) this.#topics.delete(key);
    };
  }

  /** Delivers `event` to this process's subscribers, remembering the version they reached. */
  #deliver(tenant: string, event: TaskEvent): void {
    const state = this.#topics.get(`${tenant}\u0000${event.taskId}`);
    if (state && event.version > state.version) state.version = event.version;
    this.#local.publish({ tenant, taskId: event.taskId }, event);
  }

  #queueCatchUpAll(): void {
    if (this.#catchUpAllQueued || !this.#readTask) return;
    this.#catchUpAllQueued = true;
    this.#inbox.push({ catchUp: 'all' });
    if (!this.#draining) void this.#drain();
  }

  #receive(payload: string): void {
    // `<origin>\n[envelopes]` (see NotificationPacks); a replica of an older a2a-kit sends one
    // envelope object with its origin inside.
    let envelopes: (Envelope & Control)[];
    try {
      if (payload.startsWith('{')) {
        const one = JSON.parse(payload) as Envelope & { o?: string };
        if (one.o === this.#origin) return;
        envelopes = [one];
      } else {
        const newline = payload.indexOf('\n');
        if (newline < 0 || payload.slice(0, newline) === this.#origin) return;
        envelopes = JSON.parse(payload.slice(newline + 1)) as (Envelope & Control)[];
        if (!Array.isArray(envelopes)) return;
      }
    } catch {
      return;
    }
    for (const envelope of envelopes) {
      if (envelope.h !== undefined) {
        this.#presence.notAlone();
        continue;
      }
      if (envelope.a !== undefined) {
        // In arrival order: what comes after it is delivered after the catch-up.
        if (envelope.a === '*') this.#queueCatchUpAll();
        continue;
      }
      if (!this.#topics.has(`${envelope.t}\u0000${envelope.k}`)) continue;
      if (this.#inbox.length >= MAX_INBOX) {
        if (this.#readTask) {
          // Too far behind: drop the backlog and read the tasks back instead (bounded memory).
          this.#inbox = [];
          this.#catchUpAllQueued = false;
          this.#queueCatchUpAll();
          return;
        }
        this.#inbox.shift();
      }
      this.#inbox.push(envelope);
    }
    if (this.#inbox.length > 0 && !this.#draining) void this.#drain();
  }

  /** Delivers queued notifications in arrival order; waits only for bodies to be fetched. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#inbox.length > 0 && !this.#closed) {
        const item = this.#inbox.shift()!;
        if ('catchUp' in item) {
          if (item.catchUp === 'all') {
            this.#catchUpAllQueued = false;
            await this.#catchUp([...this.#topics.keys()]);
          } else {
            await this.#catchUp([item.catchUp], item.attempt);
          }
          continue;
        }
        const envelope = item;
        let event = envelope.e;
        if (!event && envelope.r !== undefined) {
          try {
            const { rows } = await this.#database.query<{ payload: string }>(
              'SELECT payload FROM a2a_events WHERE seq = $1',
              [envelope.r],
            );
            if (rows[0]) event = JSON.parse(rows[0].payload) as TaskEvent;
          } catch {
            // Unreadable: caught up from the store below.
          }
          if (!event) {
            await this.#catchUp([`${envelope.t}\u0000${envelope.k}`]);
            continue;
          }
        }
        if (event) this.#deliver(envelope.t, event);
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Reads the tasks of `keys` again and hands each subscribed one that moved past the version
   * delivered here to its subscribers as a `task` event. A task that cannot be read now is
   * tried again later (with backoff, while subscribed).
   */
  async #catchUp(keys: string[], attempt = 0): Promise<void> {
    const readTask = this.#readTask;
    if (!readTask) return;
    const failed: string[] = [];
    for (let i = 0; i < keys.length && !this.#closed; i += CATCH_UP_CONCURRENCY) {
      const chunk = keys.slice(i, i + CATCH_UP_CONCURRENCY);
      await Promise.all(
        chunk.map(async (key) => {
          const state = this.#topics.get(key);
          if (!state?.owner) return;
          let record: StoredTask | undefined;
          try {
            record = await readTask({ tenant: state.tenant, owner: state.owner }, state.taskId);
          } catch {
            failed.push(key);
            return;
          }
          // Still subscribed, and newer than anything delivered meanwhile?
          if (!record || this.#topics.get(key) !== state || record.version <= state.version) return;
          const task = record.task;
          this.#deliver(state.tenant, {
            taskId: task.id,
            version: record.version,
            state: task.status.state,
            response: { task },
          });
        }),
      );
    }
    if (failed.length > 0 && !this.#closed) {
      void delay(Math.min(100 * 2 ** attempt, 5_000)).then(() => {
        if (this.#closed) return;
        const still = failed.filter((key) => this.#topics.has(key));
        if (still.length === 0) return;
        // Through the inbox, so it stays ordered with notifications that arrive meanwhile.
        for (const key of still) this.#inbox.push({ catchUp: key, attempt: attempt + 1 });
        if (!this.#draining) void this.#drain();
      });
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#presence.close();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
    // What was published is sent before the pool may end.
    await this.#packs.close();
    await this.#database.release();
  }
}
