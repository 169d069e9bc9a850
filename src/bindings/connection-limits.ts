/**
 * Caps on the open TCP connections of one listener, in all and per remote address (issue 27):
 * a client that opens connections and leaves them (or never speaks the protocol) cannot take
 * every socket of the process. Used by the HTTP listener and the gRPC listener alike; a
 * connection past a cap is closed as soon as it is accepted, before a byte is read.
 */
import type { Socket } from 'node:net';

/** The caps of one listener. */
export interface ConnectionLimitOptions {
  /** Most connections open at once on the listener. */
  maxConnections: number;
  /** Most connections open at once from one remote address; `Infinity` for no cap. */
  maxConnectionsPerAddress: number;
}

/** Counts the open connections of one listener and refuses those past its caps. */
export class ConnectionLimiter {
  readonly #open = new Set<Socket>();
  // Entries only for addresses with an open connection: bounded by maxConnections.
  readonly #perAddress = new Map<string, number>();
  #refused = 0;

  constructor(private readonly limits: ConnectionLimitOptions) {
    positiveCap(limits.maxConnections, 'maxConnections');
    positiveCap(limits.maxConnectionsPerAddress, 'maxConnectionsPerAddress');
  }

  /** Connections open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Connections refused so far (past a cap, or closed before they could be counted). */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Counts `socket` until it closes and returns true, or destroys it and returns false when a
   * cap is reached (or the socket has no remote address any more: it is already gone).
   */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress;
    const fromAddress = address === undefined ? 0 : (this.#perAddress.get(address) ?? 0);
    if (
      address === undefined ||
      this.#open.size >= this.limits.maxConnections ||
      fromAddress >= this.limits.maxConnectionsPerAddress
    ) {
      this.#refused++;
      socket.destroy();
      return false;
    }
    this.#open.add(socket);
    this.#perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.#open.delete(socket);
      const left = (this.#perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#perAddress.set(address, left);
      else this.#perAddress.delete(address);
    });
    return true;
  }

  /** Destroys every connection still open (at shutdown, after the grace period). */
  destroyAll(): void {
    for (const socket of this.#open) socket.destroy();
  }
}

function positiveCap(value: number, name: string): void {
  if (!(value === Infinity || (Number.isInteger(value) && value > 0))) {
    throw new RangeError(`${name} must be a positive integer (or Infinity), got ${value}`);
  }
}
