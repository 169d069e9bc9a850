/**
 * Maps for entries that come and go as requests run (one per running task or in-flight send).
 *
 * V8 shrinks a Map on any delete that leaves it less than half full, and grows it again on the
 * next insert: a map that holds one or two entries and empties after each request reallocated
 * its table twice per request, and the server's per-task maps did so five times per SendMessage
 * (about 5 µs of CPU). Here a delete leaves a tombstone in place instead, and the table is
 * rebuilt without them once they are as many as the live entries (and at least
 * {@link SWEEP_AT}): memory stays within twice the live entries plus that, and the rebuild is
 * amortized over the deletes that led to it.
 */

/** Tombstones a map may hold before it is rebuilt without them. */
const SWEEP_AT = 64;

const GONE: unique symbol = Symbol('gone');

/** A Map whose deletes do not shrink it (values must not be `undefined`). */
export class TransientMap<K, V> {
  #map = new Map<K, V | typeof GONE>();
  #gone = 0;

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    return value === GONE ? undefined : value;
  }

  has(key: K): boolean {
    const value = this.#map.get(key);
    return value !== undefined && value !== GONE;
  }

  set(key: K, value: V): void {
    if (this.#map.get(key) === GONE) this.#gone--;
    this.#map.set(key, value);
  }

  /** Removes `key`; false when it was not there. */
  delete(key: K): boolean {
    const value = this.#map.get(key);
    if (value === undefined || value === GONE) return false;
    this.#map.set(key, GONE);
    if (++this.#gone >= SWEEP_AT && this.#gone * 2 >= this.#map.size) this.#sweep();
    return true;
  }

  /** Live entries. */
  get size(): number {
    return this.#map.size - this.#gone;
  }

  *values(): IterableIterator<V> {
    for (const value of this.#map.values()) if (value !== GONE) yield value;
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [key, value] of this.#map) if (value !== GONE) yield [key, value];
  }

  #sweep(): void {
    const live = new Map<K, V | typeof GONE>();
    for (const [key, value] of this.#map) if (value !== GONE) live.set(key, value);
    this.#map = live;
    this.#gone = 0;
  }
}

/**
 * Values by tenant, then a second key (a task id): a {@link TransientMap} per tenant. A tenant
 * whose entries are all gone keeps its map for a while (until {@link SWEEP_AT} deletes later),
 * so a tenant's one running task does not make and drop a map per request, and tenants no
 * longer in use are still let go.
 */
export class TransientIndex<V> {
  readonly #tenants = new Map<string, TransientMap<string, V>>();
  /** Tenants whose map was emptied by a delete since the last prune. */
  #emptied: string[] = [];
  #deletes = 0;

  get(tenant: string, key: string): V | undefined {
    return this.#tenants.get(tenant)?.get(key);
  }

  has(tenant: string, key: string): boolean {
    return this.#tenants.get(tenant)?.has(key) === true;
  }

  set(tenant: string, key: string, value: V): void {
    let entries = this.#tenants.get(tenant);
    if (!entries) {
      entries = new TransientMap();
      this.#tenants.set(tenant, entries);
    }
    entries.set(key, value);
  }

  /** Removes the entry; false when it was not there. */
  delete(tenant: string, key: string): boolean {
    const entries = this.#tenants.get(tenant);
    if (!entries?.delete(key)) return false;
    if (entries.size === 0) this.#emptied.push(tenant);
    if (++this.#deletes >= SWEEP_AT) this.#prune();
    return true;
  }

  /** Every live value, tenant by tenant. */
  *values(): IterableIterator<V> {
    for (const entries of this.#tenants.values()) yield* entries.values();
  }

  /** Number of live entries (all tenants). */
  get size(): number {
    let n = 0;
    for (const entries of this.#tenants.values()) n += entries.size;
    return n;
  }

  /** Drops the maps of tenants emptied since the last prune and still empty. */
  #prune(): void {
    this.#deletes = 0;
    for (const tenant of this.#emptied) {
      if (this.#tenants.get(tenant)?.size === 0) this.#tenants.delete(tenant);
    }
    this.#emptied = [];
  }
}
