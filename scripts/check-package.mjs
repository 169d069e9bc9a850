#!/usr/bin/env node
// Checks the package as it would be published: packs dist/ (build it first: `npm run
// lint:package` does) into a tarball, lints that tarball with publint (exports, files, types)
// and @arethetypeswrong/cli (every entry's types resolve for ESM consumers under node16 and
// bundler resolution; the package is ESM-only, so the CommonJS and node10 rows are not asked
// for), and checks that the files the CLI and the inspector load at run time are in it.
// Usage: node scripts/check-package.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

if (!statSync(join(root, 'dist', 'index.js'), { throwIfNoEntry: false })) {
  console.error('check-package: dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-pack-'));
try {
  // The tarball of dist/ as it is (no `prepare` build: the caller built it).
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  )[0];
  const tarball = join(dir, packed.filename);
  const files = new Set(packed.files.map((f) => f.path));
  const required = [
    'dist/cli/main.js',
    'dist/inspector/assets/app.js',
    'dist/inspector/assets/app.css',
    'proto/lf/a2a/v1/a2a.proto',
    'README.md',
    'CHANGELOG.md',
  ];
  const missing = required.filter((path) => !files.has(path));
  const stray = [...files].filter((path) => /^(src|test|bench|scripts)\//.test(path));
  if (missing.length > 0 || stray.length > 0) {
    console.error(`check-package: missing from the tarball: ${missing.join(', ') || 'none'}`);
    console.error(`check-package: should not be in it: ${stray.slice(0, 10).join(', ') || 'none'}`);
    process.exit(1);
  }
  execFileSync(bin('publint'), ['run', tarball, '--strict', '--level', 'suggestion'], { stdio: 'inherit' });
  execFileSync(
    bin('attw'),
    [tarball, '--profile', 'esm-only', '--no-emoji', '--no-color', '--format', 'table'],
    {
      stdio: 'inherit',
    },
  );
  console.log(
    `check-package: ${packed.filename}, ${files.size} files, ${Math.round(packed.size / 1024)} KiB packed`,
  );
} catch (err) {
  console.error(`check-package: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
