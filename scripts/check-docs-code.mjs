#!/usr/bin/env node
// Compiles every ```ts code block of README.md, CHANGELOG.md and docs/ against the package, so
// the examples cannot rot: each block becomes a module in a temporary project whose `a2a-kit`
// and `a2a-kit/*` imports are mapped (from package.json's exports) to the sources in src/.
// Usage: node scripts/check-docs-code.mjs [--keep]   (--keep leaves the temporary project)
import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import process from 'node:process';
import console from 'node:console';

const root = join(import.meta.dirname, '..');
const SCAN = ['README.md', 'CHANGELOG.md', 'docs'];
const SKIP = new Set(['api', 'node_modules']);
const FENCE = /^```(?:ts|typescript)\s*$/;

function markdownFiles(path) {
  const full = join(root, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isFile()) return path.endsWith('.md') ? [path] : [];
  return readdirSync(full).flatMap((name) => (SKIP.has(name) ? [] : markdownFiles(join(path, name))));
}

/** The TypeScript blocks of one Markdown text, each with the line its code starts on. */
function blocksOf(text) {
  const blocks = [];
  let open = null;
  text.split('\n').forEach((line, i) => {
    const trimmed = line.trim();
    if (open === null) {
      if (FENCE.test(trimmed))
        open = { line: i + 2, indent: line.length - line.trimStart().length, code: [] };
    } else if (trimmed === '```') {
      blocks.push({ line: open.line, code: open.code.join('\n') });
      open = null;
    } else {
      open.code.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
    }
  });
  return blocks;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const paths = {};
for (const [entry, target] of Object.entries(pkg.exports)) {
  const types = typeof target === 'string' ? target : target.types;
  const source = join(root, types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
  paths[entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`] = [source];
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-docs-code-'));
const where = new Map();
let count = 0;
for (const file of SCAN.flatMap(markdownFiles)) {
  for (const block of blocksOf(readFileSync(join(root, file), 'utf8'))) {
    const name = `${file.replace(/[^\w]+/g, '_')}_${block.line}.ts`;
    // `export {}` makes every block a module of its own: top-level await, no clashing names.
    writeFileSync(join(dir, name), `${block.code}\nexport {};\n`);
    where.set(name, { file, line: block.line });
    count++;
  }
}
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({
    extends: join(root, 'tsconfig.json'),
    compilerOptions: {
      noEmit: true,
      declaration: false,
      sourceMap: false,
      paths,
      typeRoots: [join(root, 'node_modules/@types')],
    },
    include: ['*.ts'],
  }),
);

let failed = false;
try {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
} catch (err) {
  failed = true;
  // Point each diagnostic at the Markdown file and line the code came from.
  for (const line of String(err.stdout ?? '')
    .split('\n')
    .filter(Boolean)) {
    const m = /^(.*?\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    const origin = m && where.get(relative(dir, join(dir, m[1])).replace(/^.*\//, ''));
    console.error(origin ? `${origin.file}:${origin.line + Number(m[2]) - 1}:${m[3]} ${m[4]}` : line);
  }
}
if (process.argv.includes('--keep')) console.log(`kept ${dir}`);
else rmSync(dir, { recursive: true, force: true });
if (failed) {
  console.error('check-docs-code: a TypeScript block in the docs does not compile (above)');
  process.exit(1);
}
console.log(`check-docs-code: ${count} TypeScript blocks compile`);
