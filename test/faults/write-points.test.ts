/**
 * The list of write points is the stores' own: every write a durable store makes names its
 * point first (so the fault suite can stop a process there), and every listed point is named
 * by some store. A new write path that skips the hook, or a point no store names, fails here.
 * (The names themselves are checked by the type: `faultAt` takes only listed ones.) That the
 * scenario passes each point is checked by every trace (points.ts, checkTrace): the points it
 * cannot pass are listed there with the reason, and are checked here to have one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFaultPlan, WRITE_POINTS } from '../../src/core/stores/fault-points.js';
import { UNTRACED } from './points.js';

const STORES = fileURLToPath(new URL('../../src/core/stores/', import.meta.url));
/** Connection, schema and migration files: they write only the schema. */
const SCHEMA_FILES = new Set(['database.ts', 'schema.ts']);

function storeFiles(): { name: string; text: string }[] {
  const files: { name: string; text: string }[] = [];
  for (const dir of ['sqlite', 'postgres']) {
    for (const file of readdirSync(join(STORES, dir))) {
      if (!file.endsWith('.ts') || SCHEMA_FILES.has(file)) continue;
      files.push({ name: `${dir}/${file}`, text: readFileSync(join(STORES, dir, file), 'utf8') });
    }
  }
  return files;
}

/** The class members of a source file, roughly: each starts at a two-space-indented signature. */
function members(text: string): { head: string; body: string }[] {
  const lines = text.split('\n');
  const out: { head: string; body: string }[] = [];
  let current: { head: string; body: string } | undefined;
  for (const line of lines) {
    if (/^ {2}(readonly |async |static |private |get )*[#\w]+(\(|: .*=>|\s*=)/.test(line)) {
      current = { head: line.trim(), body: '' };
      out.push(current);
    }
    if (current) current.body += `${line}\n`;
  }
  return out;
}

const WRITE_SQL = /\b(INSERT INTO|UPDATE a2a_\w+|DELETE FROM)\b/;

test('every SQLite write runs through a write that names its point first', () => {
  for (const { name, text } of storeFiles()) {
    if (!name.startsWith('sqlite/')) continue;
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (!/\.write\(/.test(line)) return;
      const window = lines.slice(i, i + 4).join('\n');
      assert.match(window, /faultAt\?\.\(/, `${name}:${i + 1}: a write without its fault point`);
    });
  }
});

test('every PostgreSQL method that writes names its point', () => {
  for (const { name, text } of storeFiles()) {
    if (!name.startsWith('postgres/')) continue;
    for (const member of members(text)) {
      if (!WRITE_SQL.test(member.body) || member.head.startsWith('readonly #')) continue;
      // A statement built here and run by a caller that names the point (the row writers).
      if (/^(static|constructor)/.test(member.head)) continue;
      const runs =
        /\b(query|write|transaction)\(/.test(member.body) || /\bidempotentWrite\(/.test(member.body);
      if (!runs) continue;
      assert.match(
        member.body,
        /faultAt\?\.\(|\bidempotentWrite\(\s*'|#write\(/,
        `${name}: ${member.head} writes without naming its fault point`,
      );
    }
  }
});

test('every listed write point is named by some store', () => {
  const all = storeFiles()
    .map((file) => file.text)
    .join('\n');
  const unnamed = WRITE_POINTS.filter((point) => !all.includes(`'${point}'`));
  assert.deepEqual(unnamed, [], 'points listed in fault-points.ts that no store names');
});

test('a point no run of the scenario passes says why, and is passed on the other store or after a fault', () => {
  for (const [kind, points] of Object.entries(UNTRACED)) {
    for (const [point, reason] of Object.entries(points)) {
      assert.ok((WRITE_POINTS as readonly string[]).includes(point), `${kind}: ${point} is no write point`);
      assert.ok(reason.length > 20, `${kind}: ${point} says too little of why no run passes it`);
    }
  }
  // Faulted nowhere (see points.ts): push.outbox.renew, and task.create, whose write the
  // suite's server (push on) makes as task.stage on SQLite and push.outbox.enqueue on PostgreSQL.
  // A new point no run passes on either store must join this list, saying so.
  const nowhere = WRITE_POINTS.filter(
    (point) =>
      UNTRACED.sqlite[point] !== undefined &&
      UNTRACED.postgres[point] !== undefined &&
      !/after a fault/.test(UNTRACED.sqlite[point]!),
  );
  assert.deepEqual(nowhere, ['task.create', 'push.outbox.renew']);
});

test('A2A_FAULT_POINT is parsed strictly', () => {
  assert.deepEqual(parseFaultPlan('task.stage:2'), { point: 'task.stage', hit: 2, action: 'kill' });
  assert.deepEqual(parseFaultPlan('lease.acquire:1:eio'), { point: 'lease.acquire', hit: 1, action: 'eio' });
  assert.throws(() => parseFaultPlan('task.nothing:1'), /unknown write point/);
  assert.throws(() => parseFaultPlan('task.stage:0'), /hit must be/);
  assert.throws(() => parseFaultPlan('task.stage:1:explode'), /action must be/);
});
