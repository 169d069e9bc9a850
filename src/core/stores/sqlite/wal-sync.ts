/** Group commit for a SQLite file: the write-ahead log synced off the event loop. */
import type * as Fs from 'node:fs';
import { requireNode } from '../../node-modules.js';

/** `node:fs`, loaded at the first sync (see node-modules.ts). */
function fs(): typeof Fs {
  return requireNode<typeof Fs>('node:fs');
}

/**
 * Syncs a write-ahead log file off the event loop (group commit): commits acknowledge their
 * writes only once a sync that started after them has finished; the commits made while a sync
 * runs share the next one.
 */
export class WalSync {
  #fd: number | undefined;
  /** Acknowledgements waiting for the next sync. */
  #waiting: (() => void)[] = [];
  #failures: ((error: unknown) => void)[] = [];
  /** The acknowledgements of the sync running now, if one is. */
  #running: { readonly done: (() => void)[]; readonly failed: ((error: unknown) => void)[] } | undefined;
  #closed = false;

  /** `onIdle`: called when a sync ended and no other was started (commits may be made again). */
  constructor(
    private readonly walPath: string,
    private readonly onIdle: () => void,
    private readonly beforeSync?: () => Promise<void>,
  ) {}

  /** A sync is running: a commit now would only wait for the next one. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Calls `done` once everything written to the log so far is on disk (`failed` if the sync fails). */
  after(done: () => void, failed: (error: unknown) => void): void {
    this.#waiting.push(done);
    this.#failures.push(failed);
    if (!this.#running) this.#start();
  }

  #start(): void {
    const done = this.#waiting;
    const failed = this.#failures;
    this.#waiting = [];
    this.#failures = [];
    let fd: number;
    try {
      // Opened at the first sync: the log exists once something was committed.
      fd = this.#fd ??= fs().openSync(this.walPath, 'r+');
    } catch (error) {
      for (const fail of failed) fail(error);
      return;
    }
    this.#running = { done, failed };
    const synced = (error: unknown): void => {
      this.#running = undefined;
      if (this.#closed) return; // close() synced and acknowledged everything already
      if (error) {
        // The commits made during the failed sync fail with it: after an fsync error the
        // kernel may have dropped the pages it could not write, so a later sync that succeeds
        // proves nothing about them.
        const later = this.#failures;
        this.#waiting = [];
        this.#failures = [];
        for (const fail of failed) fail(error);
        for (const fail of later) fail(error);
      } else for (const ack of done) ack();
      if (this.#waiting.length > 0) this.#start();
      else this.onIdle();
    };
    if (this.beforeSync) {
      this.beforeSync().then(
        () => fs().fdatasync(fd, synced),
        (error: unknown) => synced(error ?? new Error('sync failed')),
      );
    } else fs().fdatasync(fd, synced);
  }

  /** Syncs the log at once (blocking; nothing to do when there is no log yet). */
  syncNow(): void {
    if (this.#fd === undefined) {
      try {
        this.#fd = fs().openSync(this.walPath, 'r+');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
    }
    fs().fdatasyncSync(this.#fd);
  }

  /** Syncs the log at once (blocking), acknowledges what waited and closes the file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const done = [...(this.#running?.done ?? []), ...this.#waiting];
    const failed = [...(this.#running?.failed ?? []), ...this.#failures];
    this.#running = undefined;
    this.#waiting = [];
    this.#failures = [];
    try {
      this.syncNow();
      for (const ack of done) ack();
    } catch (error) {
      for (const fail of failed) fail(error);
    } finally {
      // An asynchronous sync still running keeps its own reference to the file.
      if (this.#fd !== undefined) fs().closeSync(this.#fd);
    }
  }
}
