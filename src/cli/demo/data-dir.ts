/** Where the demo keeps its data: `A2A_DEMO_DIR`, else `~/.a2a-kit/demo`. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The demo's data directory when none is given with `--data-dir`. */
export function defaultDataDir(): string {
  return process.env.A2A_DEMO_DIR || join(homedir(), '.a2a-kit', 'demo');
}
