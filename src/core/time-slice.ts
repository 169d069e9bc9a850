/**
 * Keeps agents from holding the event loop. An agent awaiting its events never yields on its
 * own when the store answers at once (the memory store resolves synchronously), so a long
 * stream would starve every other request. Each event first asks {@link yieldIfBusy}: once the
 * current turn of the event loop has run for more than a small slice, the event waits for the
 * next turn (setImmediate), letting I/O in between.
 */

/** How long one turn may run agent events before they wait for the next turn. */
export const TIME_SLICE_MS = 4;

let sliceStart = 0;
let inSlice = false;

function endSlice(): void {
  inSlice = false;
}

/**
 * Undefined while the current turn is within its slice (go on at once), else a promise that
 * resolves on a later turn of the event loop.
 */
export function yieldIfBusy(): Promise<void> | undefined {
  const now = performance.now();
  if (!inSlice) {
    // The first event of this turn: the slice starts, and ends with the turn.
    inSlice = true;
    sliceStart = now;
    setImmediate(endSlice);
    return undefined;
  }
  if (now - sliceStart < TIME_SLICE_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}
