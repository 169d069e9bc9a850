/**
 * The runtime-neutral entries (a2a-kit, /server, /client, /model, /errors) bundle for workerd
 * with nothing Node-only or native at import time (scripts/check-neutral-entries.mjs, also run
 * by `npm run lint`); and the check does catch such an import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './support.js';

interface NeutralCheck {
  NEUTRAL_ENTRIES: Record<string, string>;
  checkEntry(entry: string): Promise<string[]>;
}

const check = (await import(`${ROOT}scripts/check-neutral-entries.mjs`)) as NeutralCheck;

for (const [name, entry] of Object.entries(check.NEUTRAL_ENTRIES)) {
  test(`${name} loads without Node-only or native modules`, async () => {
    assert.deepEqual(await check.checkEntry(join(ROOT, entry)), []);
  });
}

test('an entry that imports better-sqlite3 or node:fs is caught', async (t) => {
  const dir = await mkdtemp(join(ROOT, 'test-output-neutral-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const entry = join(dir, 'entry.ts');
  await writeFile(
    entry,
    "import 'better-sqlite3';\nimport { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
  );
  const problems = await check.checkEntry(entry);
  assert.ok(
    problems.some((p) => p.includes('node:fs')),
    problems.join('\n'),
  );
  assert.ok(problems.length >= 2, problems.join('\n'));
});
