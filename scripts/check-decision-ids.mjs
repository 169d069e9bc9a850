#!/usr/bin/env node
// Checks that every protocol-decision id cited in the sources (D2, G5, N7, SRV-SEND-7,
// CLI-CARD-2, ...) has an entry in docs/protocol-decisions.md. Plain node, no dependencies.
// Usage: node scripts/check-decision-ids.mjs [--list]   (--list prints the cited ids)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';

const root = join(import.meta.dirname, '..');
const DOC = 'docs/protocol-decisions.md';
const SCAN = ['src', 'test', 'bench', 'README.md', 'CHANGELOG.md', 'docs'];
// .next: what `next dev` builds in the Next.js test fixture (test/runtimes/next-app).
const SKIP = new Set(['node_modules', 'dist', 'gen', 'api', '.next']);
const EXT = /\.(ts|mts|js|mjs|md)$/;

// Settlements and gaps: D2, G12, N7. Checklist items: SRV-SEND-7, CLI-CARD-2, with the short
// forms we write in comments: SRV-CARD-2..7 (range), SRV-JSON-1/2/6 and CLI-PUSH-1..4, 7, 8
// (lists), SRV-REST-* or a bare SRV-EXT (the whole family).
// The A2A 1.1 draft's settlements are GEN-1, GEN-2, ... (issue 31).
const DECISION = /\b(?:[DGN]\d{1,2}|GEN-\d{1,2})\b/g;
const CHECKLIST = /\b((?:SRV|CLI)-[A-Z]+)(?:-(\d+)((?:(?:\/|\.\.|, ?)\d+\b)*)|-\*|(?![-\w]))/g;

function files(path) {
  const full = join(root, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full).flatMap((name) => (SKIP.has(name) ? [] : files(join(path, name))));
}

/** Every id a text cites, with short forms expanded; families end in `-*`. */
function citedIds(text) {
  const ids = new Set(text.match(DECISION) ?? []);
  for (const [, family, first, rest] of text.matchAll(CHECKLIST)) {
    if (first === undefined) {
      ids.add(`${family}-*`);
      continue;
    }
    let previous = Number(first);
    ids.add(`${family}-${previous}`);
    for (const [, sep, n] of (rest ?? '').matchAll(/(\/|\.\.|, ?)(\d+)/g)) {
      const to = Number(n);
      if (sep === '..') for (let i = previous + 1; i < to; i++) ids.add(`${family}-${i}`);
      ids.add(`${family}-${to}`);
      previous = to;
    }
  }
  return ids;
}

const doc = readFileSync(join(root, DOC), 'utf8');
// An entry is a heading (`### D2 — ...`) or a list item that starts with the bold id.
const defined = new Set(
  [...doc.matchAll(/^(?:#{2,4} |- \*\*)([A-Z]+(?:-[A-Z]+-\d+|-\d+|\d+))\b/gm)].map((m) => m[1]),
);

const unresolved = new Map();
const cited = new Set();
for (const path of SCAN.flatMap(files).filter((p) => EXT.test(p))) {
  const text = readFileSync(join(root, path), 'utf8');
  text.split('\n').forEach((line, i) => {
    for (const id of citedIds(line)) {
      cited.add(id);
      const ok = id.endsWith('-*')
        ? [...defined].some((d) => d.startsWith(id.slice(0, -1)))
        : defined.has(id);
      if (!ok) unresolved.set(id, [...(unresolved.get(id) ?? []), `${path}:${i + 1}`]);
    }
  });
}

if (process.argv.includes('--list')) console.log([...cited].sort().join('\n'));
if (unresolved.size > 0) {
  console.error(`Ids cited but not defined in ${DOC}:`);
  for (const [id, where] of unresolved)
    console.error(`  ${id}  (${where.slice(0, 3).join(', ')}${where.length > 3 ? ', ...' : ''})`);
  process.exit(1);
}
console.log(`check-decision-ids: ${cited.size} cited ids, all defined in ${DOC}`);
