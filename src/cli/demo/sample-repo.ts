/**
 * The demo's sample service: a tiny `payments-api` git repository with two commits, tagged
 * `passing` (its tests pass) and `failing` (a later commit that breaks one test).
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../../agents/test-runner/git.js';

/** The two commits of the sample repository. */
export interface SampleRepo {
  path: string;
  passing: string;
  failing: string;
}

const IDENTITY = ['-c', 'user.name=a2a-kit demo', '-c', 'user.email=demo@a2a-kit.invalid'];

const FEES_V1 = `/** Card fee in cents: 2.9% plus 30 cents, rounded half up. */
export function cardFee(amountCents) {
  return Math.round(amountCents * 0.029) + 30;
}
`;
const FEES_V2 = `/** Card fee in cents: 2.9% plus 30 cents (the rounding "optimisation" that broke it). */
export function cardFee(amountCents) {
  return Math.floor(amountCents * 0.029) + 3;
}
`;
const REFUNDS = `/** A refund may not exceed what was charged. */
export function refundable(chargedCents, refundedCents, askedCents) {
  return askedCents > 0 && refundedCents + askedCents <= chargedCents;
}
`;
const FEES_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardFee } from '../src/fees.js';

test('fees: 10.00 costs 0.59', () => assert.equal(cardFee(1000), 59));
test('fees: zero still pays the fixed part', () => assert.equal(cardFee(0), 30));
`;
const REFUNDS_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refundable } from '../src/refunds.js';

test('refunds: a partial refund is allowed', () => assert.equal(refundable(1000, 0, 400), true));
test('refunds: more than charged is refused', () => assert.equal(refundable(1000, 700, 400), false));
`;

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function commitAll(dir: string, message: string): Promise<string> {
  await git(['-C', dir, 'add', '-A']);
  await git(['-C', dir, ...IDENTITY, 'commit', '-q', '-m', message]);
  return git(['-C', dir, 'rev-parse', 'HEAD']);
}

/** Creates the sample repository at `dir` unless it is already there; returns its commits. */
export async function ensureSampleRepo(dir: string): Promise<SampleRepo> {
  if (await exists(join(dir, '.git'))) {
    const passing = await git(['-C', dir, 'rev-parse', 'passing^{commit}']);
    const failing = await git(['-C', dir, 'rev-parse', 'failing^{commit}']);
    return { path: dir, passing, failing };
  }
  await mkdir(join(dir, 'src'), { recursive: true });
  await mkdir(join(dir, 'test'), { recursive: true });
  await git(['-C', dir, 'init', '-q', '-b', 'main']);
  const pkg = { name: 'payments-api', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await writeFile(join(dir, 'src', 'fees.js'), FEES_V1);
  await writeFile(join(dir, 'src', 'refunds.js'), REFUNDS);
  await writeFile(join(dir, 'test', 'fees.test.js'), FEES_TEST);
  await writeFile(join(dir, 'test', 'refunds.test.js'), REFUNDS_TEST);
  const passing = await commitAll(dir, 'payments-api: card fees and refunds');
  await git(['-C', dir, 'tag', 'passing']);
  await writeFile(join(dir, 'src', 'fees.js'), FEES_V2);
  const failing = await commitAll(dir, 'fees: faster rounding');
  await git(['-C', dir, 'tag', 'failing']);
  return { path: dir, passing, failing };
}
