/**
 * `a2a push deliveries` and `a2a push replay`: the operator's view of a server's push outbox,
 * read straight from the store the server uses (a SQLite file or a PostgreSQL database), so it
 * works beside a running server or after it stopped. A memory outbox lives inside its server
 * process and cannot be reached from here.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import type { PushDelivery, PushDeliveryState } from '../core/push/outbox.js';
import { isStoreSpec, openStores, type OpenedStores } from '../core/stores/open.js';
import { DEFAULT_STORE } from '../server/http.js';
import { UsageError, type ClientCommandIO } from './common.js';
import { EXIT } from './exit-codes.js';
import { jsonLine } from './render.js';

const STATES: readonly PushDeliveryState[] = ['pending', 'delivered', 'dead'];
const MAX_LIMIT = 1000;

interface StoreOption {
  store?: string;
  json?: boolean;
}

interface DeliveriesOptions extends StoreOption {
  task?: string;
  tenant?: string;
  state?: string;
  limit?: string;
  attempts?: boolean;
}

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** Opens the store named by `--store` (else A2A_STORE, else the server's default file). */
async function openOutboxStore(option: string | undefined): Promise<OpenedStores> {
  const spec = option ?? process.env.A2A_STORE ?? DEFAULT_STORE;
  if (!isStoreSpec(spec)) {
    throw new UsageError(`--store ${JSON.stringify(spec)}: use sqlite:<path> or a postgres:// URL`);
  }
  if (spec === 'memory') {
    throw new UsageError(
      'a memory outbox lives inside its server process: give the store that server uses (--store sqlite:<path> or postgres://...)',
    );
  }
  const stores = openStores(spec);
  try {
    await stores.ready;
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw error;
  }
  return stores;
}

function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${value}`);
  }
  return n;
}

function stateOf(value: string | undefined): PushDeliveryState | undefined {
  if (value === undefined) return undefined;
  if (!(STATES as readonly string[]).includes(value)) {
    throw new UsageError(`--state must be one of ${STATES.join(', ')}, got ${value}`);
  }
  return value as PushDeliveryState;
}

function humanLine(delivery: PushDelivery): string {
  const state =
    delivery.state === 'dead'
      ? pc.red(delivery.state)
      : delivery.state === 'delivered'
        ? pc.green(delivery.state)
        : pc.yellow(delivery.state);
  const when = new Date(delivery.createdAtMs).toISOString();
  const error = delivery.lastError ? `  ${pc.dim(delivery.lastError)}` : '';
  return `${delivery.id}  ${state}  task ${delivery.taskId}  config ${delivery.configId}  #${delivery.seq}  attempts ${delivery.attempts}  ${when}${error}`;
}

/** Runs `work` on the opened store, reporting failures as one line with the right exit code. */
async function withOutbox<T>(
  io: ClientCommandIO,
  option: string | undefined,
  check: () => T,
  work: (stores: OpenedStores, checked: T) => Promise<void>,
): Promise<void> {
  let stores: OpenedStores | undefined;
  try {
    // The arguments first: a usage error must not open (or create) a store.
    const checked = check();
    stores = await openOutboxStore(option);
    await work(stores, checked);
  } catch (error) {
    io.err(`a2a: ${error instanceof Error ? error.message : String(error)}`);
    io.setExitCode(error instanceof UsageError ? EXIT.usage : EXIT.failed);
  } finally {
    await stores?.close().catch(() => undefined);
  }
}

const noCheck = (): undefined => undefined;

/** Registers `deliveries` and `replay` under `a2a push`. */
export function registerPushDeliveries(push: Command, io: ClientCommandIO): void {
  push
    .command('deliveries')
    .description("list a server's push deliveries from its store (newest first), with their attempts")
    .option(
      '--store <spec>',
      'the store the server uses: sqlite:<path> or postgres://... (default: A2A_STORE, else ./a2a-data/a2a.sqlite)',
    )
    .option('--task <taskId>', 'only this task')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--state <state>', `only this state: ${STATES.join(', ')}`)
    .option('--limit <n>', `at most this many (1-${MAX_LIMIT})`, '50')
    .option('--attempts', 'show each delivery’s attempts too')
    .option('--json', 'one JSON line per delivery ({"kind":"pushDelivery",...})')
    .addHelpText(
      'after',
      examples([
        'a2a push deliveries --store sqlite:./a2a-data/a2a.sqlite --state dead',
        'a2a push deliveries --task 1f0c... --attempts --json',
      ]),
    )
    .action(async (opts: DeliveriesOptions) => {
      const check = () => ({ state: stateOf(opts.state), limit: limitOf(opts.limit) });
      await withOutbox(io, opts.store, check, async ({ pushOutbox }, { state, limit }) => {
        const deliveries = await pushOutbox.list({
          limit,
          ...(opts.task ? { taskId: opts.task } : {}),
          ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
          ...(state ? { state } : {}),
        });
        for (const delivery of deliveries) {
          const attempts = opts.attempts ? await pushOutbox.attempts(delivery.id) : undefined;
          if (opts.json) {
            // The payload is the notification body: left out, as it may carry task content.
            const { payload: _payload, ...facts } = delivery;
            io.out(jsonLine('pushDelivery', attempts ? { ...facts, attempts: attempts } : facts));
            continue;
          }
          io.out(humanLine(delivery));
          for (const attempt of attempts ?? []) {
            const outcome = attempt.ok
              ? pc.green(`${attempt.status ?? 'ok'}`)
              : pc.red(attempt.error ?? `${attempt.status}`);
            io.out(`    ${new Date(attempt.atMs).toISOString()}  ${attempt.durationMs} ms  ${outcome}`);
          }
        }
        if (deliveries.length === 0 && !opts.json) io.err('no push deliveries match');
      });
    });

  push
    .command('replay <deliveryId>')
    .description('send a dead push delivery again (the server that uses the store picks it up)')
    .option('--store <spec>', 'the store the server uses: sqlite:<path> or postgres://...')
    .option('--json', 'print {"kind":"replayed","replayed":{"id":...}}')
    .addHelpText('after', examples(['a2a push replay 6b1e... --store sqlite:./a2a-data/a2a.sqlite']))
    .action(async (deliveryId: string, opts: StoreOption) => {
      await withOutbox(io, opts.store, noCheck, async ({ pushOutbox }) => {
        const delivery = await pushOutbox.get(deliveryId);
        if (!delivery) throw new Error(`no push delivery ${deliveryId} in this store`);
        if (delivery.state !== 'dead') {
          throw new Error(
            `push delivery ${deliveryId} is ${delivery.state}: only a dead one can be replayed`,
          );
        }
        if (!(await pushOutbox.replay(deliveryId)))
          throw new Error(`push delivery ${deliveryId} changed meanwhile`);
        if (opts.json) io.out(jsonLine('replayed', { id: deliveryId, taskId: delivery.taskId }));
        else io.out(`replayed push delivery ${deliveryId} of task ${delivery.taskId}: pending again`);
      });
    });
}
