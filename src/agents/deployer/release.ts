/**
 * A real local deployment: the commit's tree is exported into `releases/<env>/<commit>` and the
 * `releases/<env>/current` symlink is switched to it atomically (a temporary symlink renamed
 * over the old one), so a reader sees the old release or the new one, never neither.
 */
import { spawn } from 'node:child_process';
import { appendFile, mkdir, rename, rm, stat, symlink, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/** Where one deployment went. */
export interface Release {
  /** Directory holding the release. */
  path: string;
  /** The `current` symlink. */
  current: string;
  /** The previous target of `current`, if there was one. */
  previous?: string;
}

/** Exports `sha` of `repo` into `dest` (git archive piped into tar). */
function exportTree(repo: string, sha: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['-C', repo, 'archive', '--format=tar', sha], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const untar = spawn('tar', ['-x', '-C', dest], { stdio: ['pipe', 'ignore', 'pipe'] });
    archive.stdout.pipe(untar.stdin);
    let stderr = '';
    archive.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    untar.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let pending = 2;
    let failed = false;
    const done = (code: number | null): void => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`exporting ${sha} failed: ${stderr.trim().split('\n')[0] ?? code}`));
      }
      if (--pending === 0 && !failed) resolve();
    };
    archive.once('close', done);
    untar.once('close', done);
    archive.once('error', reject);
    untar.once('error', reject);
  });
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Deploys `sha` of `repo` to `env` under `dataDir`; an existing release of the commit is reused. */
export async function deployRelease(
  dataDir: string,
  env: string,
  repo: string,
  sha: string,
): Promise<Release> {
  const envDir = join(dataDir, 'releases', env);
  await mkdir(envDir, { recursive: true });
  const path = join(envDir, sha);
  if (!(await exists(path))) {
    const staging = join(envDir, `.${sha}.${randomUUID()}.tmp`);
    await mkdir(staging);
    try {
      await exportTree(repo, sha, staging);
      await rename(staging, path);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }
  const current = join(envDir, 'current');
  const previous = await readlink(current).catch(() => undefined);
  const link = join(envDir, `.current.${randomUUID()}.tmp`);
  await symlink(sha, link); // relative: the env directory can move
  await rename(link, current);
  return { path, current, ...(previous ? { previous } : {}) };
}

/** Appends one line to `deployments.log` in the data directory (the audit trail the tests read). */
export async function recordDeployment(dataDir: string, entry: Record<string, unknown>): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await appendFile(join(dataDir, 'deployments.log'), `${JSON.stringify(entry)}\n`);
}
