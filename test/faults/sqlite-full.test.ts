/**
 * Fault suite, SQLite, a really full disk: at each write point of the scenario (each of the
 * first hits of each, from a trace), the server's file stops growing (`PRAGMA max_page_count`
 * set to its size, by the fault hook's `full` action), so that write and every later one that
 * needs a page fail with SQLite's own SQLITE_FULL. While the disk is full: every failed call
 * got a clear protocol error, reads are served, nothing half-written is visible (the counts
 * ListTasks reports match the tasks); once the room is given back (`POST /faults/free`) a new
 * run of the scenario succeeds in the same process; then it is stopped (exit 0, no unhandled
 * error), restarted on the same file, and the invariants of issue 26 hold (cases.ts,
 * invariants.ts).
 *
 * No hook-made SQLITE_FULL is kept: no code tells SQLITE_FULL from SQLITE_IOERR, so the one
 * thing only an injected error reaches (a single write failing where the file would not grow,
 * as a full disk's write-ahead-log append does) is the same path sqlite-eio.test.ts covers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWebhook } from '../server/push/support.js';
import { casesOf, runCase, type RunningCase } from './cases.js';
import { tracePoints } from './harness.js';
import { checkCounts } from './invariants.js';
import { connect, mergeJournals, runScenario, STEPS, type Journal } from './scenario.js';

/** What a caller may be told when its write met the full disk. */
const CLEAR_ERROR = /the server's store is full|could not record/;

/** Cases that met a full disk (some fill after the last write that needs room). */
let metFull = 0;

/** Waits (bounded) until the case's `full` fault has filled the disk; false if it never did. */
async function filled(url: string): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    const reply = (await (await fetch(new URL('/faults/disk', url))).json()) as { fills: number };
    if (reply.fills > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return false;
}

/** The checks while the disk is full, then after its room is given back; returns what was told. */
async function whileFull({ child, prefix, webhook, told }: RunningCase): Promise<Journal> {
  // A point on a timer (a delivery's settlement) may come after the scenario, and one the
  // trace passed may not come again (a heartbeat with no lease to renew, events joined into
  // one staged write): such a case is a run without the fault.
  if (!(await filled(child.url!))) return told;
  // More of every step while the disk is full (the fault may have come after the last one).
  const during = await runScenario(child.url!, `${prefix}-during`, webhook.url);
  const client = await connect(child.url!);
  try {
    // A caller whose call failed was told why: the disk is full, not a bare internal error.
    let failed = 0;
    for (const journal of [told, during]) {
      for (const step of STEPS) {
        const error = journal[step].error;
        if (error === undefined || (step === 'refuse' && /refused before any event/.test(error))) continue;
        failed++;
        assert.match(error, CLEAR_ERROR, `${step}: failed with an unclear error while the disk is full`);
      }
    }
    if (failed > 0) metFull++;
    // Reads are served, and show nothing half-written: each count ListTasks reports is the
    // number of tasks it lists (a count kept from a write the disk refused would not be).
    for (const step of STEPS) {
      for (const id of [told[step].taskId, during[step].taskId]) {
        if (id) assert.equal((await client.getTask(id)).id, id, `${step}: GetTask while full`);
      }
    }
    await checkCounts(client);
    // What reached onError names the store's reason (not, say, that a task does not exist).
    for (const line of child.stderr().split('\n')) {
      if (line.startsWith('onError:')) assert.match(line, CLEAR_ERROR, 'onError was told another reason');
    }
    const freed = await fetch(new URL('/faults/free', child.url), { method: 'POST' });
    assert.equal(freed.status, 204);
  } finally {
    await client.close().catch(() => {});
  }
  // Writes succeed again, in the same process: a new run of the scenario, every step.
  const after = await runScenario(child.url!, `${prefix}-freed`, webhook.url);
  for (const step of STEPS) {
    const error = after[step].error;
    if (step === 'refuse') assert.match(error ?? '', /refused before any event/);
    else assert.equal(error, undefined, `${step}: failed after the disk was freed`);
  }
  // The scenario's own steps again (original outcomes, or runs), before the restart checks.
  return mergeJournals(told, await runScenario(child.url!, prefix, webhook.url, told));
}

test(
  'SQLite: a disk that fills at each write point of the scenario breaks no invariant',
  { timeout: 170_000, concurrency: 2 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const cases = casesOf(await tracePoints('sqlite', hook.url), 'full');
    await Promise.all(
      cases.map((fault) =>
        t.test(`disk full at ${fault.point} #${fault.hit}`, () =>
          runCase('sqlite', hook, { fault, whileRunning: whileFull, place: { sqlitePageSize: 512 } }),
        ),
      ),
    );
    t.diagnostic(`${metFull} of ${cases.length} cases met the full disk`);
    // Most points are followed by writes that need room: the disk must have been met.
    assert.ok(metFull >= cases.length / 2, `only ${metFull} of ${cases.length} cases met the full disk`);
  },
);
