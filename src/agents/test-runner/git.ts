/** The few git operations the test-runner needs, through the `git` command. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs git with `args`; resolves with trimmed stdout, rejects with git's first stderr line. */
export async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, maxBuffer: 4 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(stderr.trim().split('\n')[0] || String(error), { cause: error });
  }
}

/** True when `path` is (inside) a git repository. */
export async function isRepository(path: string): Promise<boolean> {
  try {
    await git(['-C', path, 'rev-parse', '--git-dir']);
    return true;
  } catch {
    return false;
  }
}

/** The full id of `commit` in `repo`, or undefined when it names no commit there. */
export async function resolveCommit(repo: string, commit: string): Promise<string | undefined> {
  if (commit.startsWith('-')) return undefined; // never an option to git
  try {
    return await git(['-C', repo, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`]);
  } catch {
    return undefined;
  }
}

/** Checks `sha` out into a new detached worktree at `dir`. */
export async function addWorktree(repo: string, dir: string, sha: string): Promise<void> {
  await git(['-C', repo, 'worktree', 'add', '--detach', dir, sha]);
}

/** Removes the worktree at `dir` (and forgets it), whatever state it is in. */
export async function removeWorktree(repo: string, dir: string): Promise<void> {
  await git(['-C', repo, 'worktree', 'remove', '--force', dir]).catch(() => undefined);
  await git(['-C', repo, 'worktree', 'prune']).catch(() => undefined);
}
