/**
 * The idempotency records of the memory task store, bounded by count, bytes and age; the
 * oldest are forgotten first.
 */
import type { Message } from '../../../model/schema.js';
import type { IdempotencyKey, IdempotencyRecord } from '../task-store.js';

/**
 * One idempotency record as the store keeps it. A `task` or `pending` record holds the task id
 * (a string the task map holds anyway); a `message` record holds the reply as its JSON text:
 * one flat string for the collector to skip over, where the reply's objects (message, parts,
 * strings) would be traced by every full collection for the whole window, and the byte bound
 * counts exactly what is held. Times are held as one number (the record's creation, as an
 * offset from when the store took the key), so a record boxes one double, not two.
 */
class HeldRecord {
  constructor(
    readonly status: IdempotencyRecord['status'],
    /** The task id, or the reply's JSON text. */
    readonly value: string,
    readonly fingerprint: string | undefined,
    /** When the store took the key (epoch ms): the age bound counts from it. */
    readonly heldSinceMs: number,
    /** `createdAtMs - heldSinceMs` (usually 0), or undefined for a record without createdAtMs. */
    readonly createdOffsetMs: number | undefined,
  ) {}

  /** Approximate heap bytes: the record, its value (two bytes a character at most), its key. */
  bytes(messageId: string): number {
    return 96 + 2 * (this.value.length + messageId.length + (this.fingerprint?.length ?? 0));
  }

  toRecord(): IdempotencyRecord {
    const facts: { fingerprint?: string; createdAtMs?: number } = {};
    if (this.fingerprint !== undefined) facts.fingerprint = this.fingerprint;
    if (this.createdOffsetMs !== undefined) facts.createdAtMs = this.heldSinceMs + this.createdOffsetMs;
    if (this.status === 'message') {
      return { status: 'message', message: JSON.parse(this.value) as Message, ...facts };
    }
    return { status: this.status, taskId: this.value, ...facts };
  }
}

function holdRecord(record: IdempotencyRecord, heldSinceMs: number): HeldRecord {
  const { fingerprint, createdAtMs } = record;
  const offset = createdAtMs === undefined ? undefined : createdAtMs - heldSinceMs;
  const value = record.status === 'message' ? JSON.stringify(record.message) : record.taskId;
  return new HeldRecord(record.status, value, fingerprint, heldSinceMs, offset);
}

/** Idempotency records of one caller, by messageId. */
type IdempotencyLeaf = Map<string, HeldRecord>;

/** The limits of {@link MemoryIdempotencyRecords}; see MemoryTaskStoreOptions. */
export interface IdempotencyRecordLimits {
  maxIdempotencyRecords?: number;
  maxIdempotencyBytes?: number;
  idempotencyMaxAgeMs?: number;
}

/** Idempotency records by tenant, then principal, then messageId. */
export class MemoryIdempotencyRecords {
  readonly #idempotency = new Map<string, Map<string, IdempotencyLeaf>>();
  #idempotencyCount = 0;
  #idempotencyBytes = 0;
  readonly #maxIdempotency: number;
  readonly #maxIdempotencyBytes: number;
  readonly #idempotencyMaxAgeMs: number;
  /** Keys in the order they were recorded (from `#orderHead`), for forgetting the oldest. */
  #orderLeaves: (IdempotencyLeaf | undefined)[] = [];
  #orderIds: (string | undefined)[] = [];
  #orderHead = 0;
  /** When the oldest record still held was taken (Infinity: none): most claims find nothing to forget. */
  #oldestHeldSinceMs = Infinity;

  constructor(options: IdempotencyRecordLimits) {
    this.#maxIdempotency = options.maxIdempotencyRecords ?? 100_000;
    this.#maxIdempotencyBytes = options.maxIdempotencyBytes ?? 32 * 1024 * 1024;
    this.#idempotencyMaxAgeMs = options.idempotencyMaxAgeMs ?? 24 * 60 * 60 * 1000;
  }

  #leaf(key: IdempotencyKey, create: boolean): IdempotencyLeaf | undefined {
    let principals = this.#idempotency.get(key.tenant);
    if (!principals) {
      if (!create) return undefined;
      principals = new Map();
      this.#idempotency.set(key.tenant, principals);
    }
    let leaf = principals.get(key.principal);
    if (!leaf && create) {
      leaf = new Map();
      principals.set(key.principal, leaf);
    }
    return leaf;
  }

  /** The record already held for `key`, else undefined after taking the key with `record`. */
  claim(key: IdempotencyKey, record: IdempotencyRecord): IdempotencyRecord | undefined {
    const now = Date.now();
    this.#forgetOld(now);
    const leaf = this.#leaf(key, true)!;
    const existing = leaf.get(key.messageId);
    if (existing !== undefined) return existing.toRecord();
    this.#add(leaf, key.messageId, holdRecord(record, now));
    return undefined;
  }

  /** Replaces (or with `undefined` drops) the record of `key`. */
  set(key: IdempotencyKey, record: IdempotencyRecord | undefined): void {
    const leaf = this.#leaf(key, record !== undefined);
    if (leaf) {
      const existing = leaf.get(key.messageId);
      if (existing) {
        this.#idempotencyBytes -= existing.bytes(key.messageId);
        if (record === undefined) {
          leaf.delete(key.messageId);
          this.#idempotencyCount--;
        } else {
          const held = holdRecord(record, existing.heldSinceMs);
          leaf.set(key.messageId, held);
          this.#idempotencyBytes += held.bytes(key.messageId);
          this.#evict();
        }
      } else if (record !== undefined) {
        this.#add(leaf, key.messageId, holdRecord(record, Date.now()));
      }
    }
  }

  /** Approximate heap bytes of the records. */
  get bytes(): number {
    return this.#idempotencyBytes;
  }

  /** Number of records held. */
  get count(): number {
    return this.#idempotencyCount;
  }

  #add(leaf: IdempotencyLeaf, messageId: string, held: HeldRecord): void {
    leaf.set(messageId, held);
    this.#idempotencyCount++;
    this.#idempotencyBytes += held.bytes(messageId);
    this.#orderLeaves.push(leaf);
    this.#orderIds.push(messageId);
    if (held.heldSinceMs < this.#oldestHeldSinceMs) this.#oldestHeldSinceMs = held.heldSinceMs;
    this.#evict();
  }

  /** Forgets the oldest records while over the count or byte cap. */
  #evict(): void {
    // #oldestHeldSinceMs stays a lower bound: the next age check that passes it finds the
    // oldest record left.
    while (
      (this.#idempotencyCount > this.#maxIdempotency || this.#idempotencyBytes > this.#maxIdempotencyBytes) &&
      this.#forgetHead()
    );
    this.#tidyOrder();
  }

  /** Forgets records older than the age bound (the order is the order keys were taken). */
  #forgetOld(now: number): void {
    if (this.#oldestHeldSinceMs < now - this.#idempotencyMaxAgeMs) {
      this.forgetBefore(now - this.#idempotencyMaxAgeMs);
    }
  }

  /** Forgets the records whose key was taken before `limitMs`; returns how many. */
  forgetBefore(limitMs: number): number {
    const before = this.#idempotencyCount;
    let oldest = Infinity;
    while (this.#orderHead < this.#orderIds.length) {
      const held = this.#orderLeaves[this.#orderHead]!.get(this.#orderIds[this.#orderHead]!);
      if (held && held.heldSinceMs >= limitMs) {
        oldest = held.heldSinceMs;
        break;
      }
      this.#forgetHead();
    }
    this.#oldestHeldSinceMs = oldest;
    this.#tidyOrder();
    return before - this.#idempotencyCount;
  }

  /**
   * Drops the oldest order entry and its record. A key removed early (a failed send) leaves a
   * stale entry, skipped here. False when the order is empty.
   */
  #forgetHead(): boolean {
    if (this.#orderHead >= this.#orderIds.length) return false;
    const head = this.#orderHead++;
    const leaf = this.#orderLeaves[head]!;
    const id = this.#orderIds[head]!;
    this.#orderLeaves[head] = undefined;
    this.#orderIds[head] = undefined;
    const held = leaf.get(id);
    if (held) {
      leaf.delete(id);
      this.#idempotencyCount--;
      this.#idempotencyBytes -= held.bytes(id);
    }
    return true;
  }

  #tidyOrder(): void {
    const pending = this.#orderIds.length - this.#orderHead;
    if (pending > 2 * Math.min(this.#maxIdempotency, this.#idempotencyCount + 1024) + 1024)
      this.#rebuildOrder();
    else if (this.#orderHead > 1024 && this.#orderHead * 2 > this.#orderIds.length) {
      this.#orderLeaves = this.#orderLeaves.slice(this.#orderHead);
      this.#orderIds = this.#orderIds.slice(this.#orderHead);
      this.#orderHead = 0;
    }
  }

  /** Drops order entries of keys no longer held, and all but the newest entry of a key. */
  #rebuildOrder(): void {
    const seen = new Map<IdempotencyLeaf, Set<string>>();
    const leaves: IdempotencyLeaf[] = [];
    const messageIds: string[] = [];
    for (let i = this.#orderIds.length - 1; i >= this.#orderHead; i--) {
      const leaf = this.#orderLeaves[i]!;
      const id = this.#orderIds[i]!;
      if (!leaf.has(id)) continue;
      let held = seen.get(leaf);
      if (!held) {
        held = new Set();
        seen.set(leaf, held);
      }
      if (held.has(id)) continue;
      held.add(id);
      leaves.push(leaf);
      messageIds.push(id);
    }
    this.#orderLeaves = leaves.reverse();
    this.#orderIds = messageIds.reverse();
    this.#orderHead = 0;
  }
}
