// Links examples/node_modules/a2a-kit to the repository root, so that the examples import the
// built package (dist/) without an install. The example tests run it too.
import { mkdirSync, symlinkSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const link = join(here, 'node_modules', 'a2a-kit');
mkdirSync(dirname(link), { recursive: true });
try {
  lstatSync(link);
} catch {
  try {
    symlinkSync('../..', link, 'dir');
  } catch (error) {
    // Another process (a test running beside this one) made it first.
    if (error?.code !== 'EEXIST') throw error;
  }
}
