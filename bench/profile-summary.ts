/**
 * Prints the hottest functions (self time, as a share of busy time) of the newest
 * `.cpuprofile` in bench/profiles/ (written by `BENCH_PROFILE=1 npm run bench`), or of the file
 * given as the first argument.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

const dir = fileURLToPath(new URL('./profiles/', import.meta.url));

/**
 * The main thread's profile of the newest run: each run also writes a nearly empty profile for
 * tsx's loader thread, so of the files written within a minute of the newest, the largest.
 */
function newestMainProfile(): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => ({ path: join(dir, f), stat: statSync(join(dir, f)) }));
  const newest = Math.max(...files.map((f) => f.stat.mtimeMs));
  return files.filter((f) => f.stat.mtimeMs >= newest - 60_000).sort((a, b) => b.stat.size - a.stat.size)[0]
    ?.path;
}

const file = process.argv[2] || newestMainProfile();
if (!file) throw new Error(`no .cpuprofile in ${dir}`);

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map<number, number>();
const samples = profile.samples ?? [];
const deltas = profile.timeDeltas ?? [];
for (let i = 0; i < samples.length; i++) {
  // Idle time is left out, so the percentages are shares of the time the server was busy.
  if (byId.get(samples[i]!)?.callFrame.functionName === '(idle)') continue;
  selfMicros.set(samples[i]!, (selfMicros.get(samples[i]!) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const where = frame.url.replace(/^.*\/(node_modules|src)\//, '$1/') || '(native)';
  const key = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const top = [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30));
process.stdout.write(`${file}\n  self%  function  location\n`);
for (const [key, micros] of top) {
  process.stdout.write(`  ${((micros / total) * 100).toFixed(1).padStart(5)}  ${key}\n`);
}
