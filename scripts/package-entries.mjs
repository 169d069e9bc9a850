// The source file of every package entry, from package.json's exports (`./dist/x.d.ts` is built
// from `src/x.ts`): shared by the knip and TypeDoc configurations, so a new entry needs no edit there.
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Source paths of the entries, relative to the repository root. */
export const entrySources = Object.values(pkg.exports).map((target) =>
  (typeof target === 'string' ? target : target.types)
    .replace(/^\.\/dist\//, 'src/')
    .replace(/\.d\.ts$/, '.ts'),
);

/** Source paths of the bins. */
export const binSources = Object.values(pkg.bin).map((path) =>
  path.replace(/^(\.\/)?dist\//, 'src/').replace(/\.js$/, '.ts'),
);
