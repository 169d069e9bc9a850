/**
 * Prints the hottest functions (self time) of the newest `.cpuprofile` in bench/profiles/
 * (written by `BENCH_PROFILE=1 npm run bench`), or of the file given as the first argument.
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
const file =
  process.argv[2] ||
  readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!file) throw new Error(`no .cpuprofile in ${dir}`);

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map<number, number>();
const samples = profile.samples ?? [];
const deltas = profile.timeDeltas ?? [];
for (let i = 0; i < samples.length; i++) {
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
