/**
 * The IPC protocol between `bench/run.ts` and each server it forks: the child reports
 * `{ type: 'ready', port, grpcPort? }`; the parent may ask `{ type: 'measure' }` (answered with
 * `{ type: 'memory', rss, heapUsed }` after a forced GC) and finally `{ type: 'exit' }`.
 */

/** A started benchmark server. */
export interface StartedServer {
  port: number;
  /** The gRPC port, for servers that also serve gRPC. */
  grpcPort?: number;
  close(): Promise<void>;
}

/** Messages the parent sends. */
export type ParentMessage = { type: 'measure' } | { type: 'exit' };
/** Messages the child sends. */
export type ChildMessage =
  | { type: 'ready'; port: number; grpcPort?: number }
  | { type: 'memory'; rss: number; heapUsed: number; gc: boolean }
  | { type: 'error'; message: string };

function send(message: ChildMessage): void {
  process.send?.(message);
}

function measure(): ChildMessage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    // Twice: the first pass may only queue finalizers whose memory the second frees.
    gc();
    gc();
  }
  const usage = process.memoryUsage();
  return { type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, gc: gc !== undefined };
}

/** Runs a benchmark server as an IPC child until the parent says exit (or goes away). */
export function runChild(start: () => Promise<StartedServer>): void {
  start().then(
    (server) => {
      let exiting = false;
      const exit = (): void => {
        if (exiting) return;
        exiting = true;
        // Exit normally (not by signal) so --cpu-prof writes its profile.
        const force = setTimeout(() => process.exit(0), 2_000);
        force.unref();
        server.close().finally(() => process.exit(0));
      };
      process.on('message', (message: ParentMessage) => {
        if (message.type === 'measure') send(measure());
        else if (message.type === 'exit') exit();
      });
      process.on('disconnect', exit);
      process.on('SIGTERM', exit);
      send({
        type: 'ready',
        port: server.port,
        ...(server.grpcPort === undefined ? {} : { grpcPort: server.grpcPort }),
      });
    },
    (err: unknown) => {
      send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exit(1);
    },
  );
}
