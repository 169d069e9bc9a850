/**
 * `test-runner`: runs a repository's tests at a commit (skill `run-tests`). The commit is
 * checked out into a temporary git worktree, the test command runs there in its own process
 * group with a time limit, each finished test is streamed as a status update, and the task
 * completes with `summary.json` and the full log. CancelTask kills the process group.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../core/executor.js';
import { KIT_VERSION, type BuiltInCard } from '../card.js';
import { addWorktree, isRepository, removeWorktree, resolveCommit } from './git.js';
import { spawnGroup } from './process-tree.js';
import { TestOutputReader, type TestCounts } from './test-output.js';

/** The command run when none is configured. */
export const DEFAULT_TEST_COMMAND = 'node --test';
/** How long a run may take when no limit is configured (10 minutes). */
export const DEFAULT_TIME_LIMIT_MS = 600_000;
/** The log kept for the `test.log` artifact; beyond it the log is cut (and says so). */
const MAX_LOG_BYTES = 1024 * 1024;
/** Progress updates per run; after these only every 100th test is reported. */
const MAX_PROGRESS_UPDATES = 500;

/** Options of {@link createTestRunner}. */
export interface TestRunnerOptions {
  /** Shell command that runs the tests in the checked-out commit. @default 'node --test' */
  command?: string;
  /** Time limit of one run, ms; a run past it is killed and its task FAILED. @default 600000 */
  timeLimitMs?: number;
  /** Where temporary worktrees go. @default os.tmpdir() */
  workDir?: string;
}

/** The `summary.json` artifact's content. */
export interface TestSummary extends TestCounts {
  durationMs: number;
  commit: string;
  repo: string;
  command: string;
  exitCode: number | null;
  failedTests: string[];
}

/** What the caller asked for: a repository path and a commit. */
interface RunRequest {
  repo: string;
  commit: string;
}

/**
 * Reads `{repo, commit}` from the first data part, or from text: `<repo> <commit>`,
 * `<repo>@<commit>`, or `repo=<path> commit=<rev>` in any order.
 */
export function parseRunRequest(ctx: Pick<RequestContext, 'data' | 'text'>): RunRequest | string {
  const data = ctx.data as { repo?: unknown; commit?: unknown } | undefined;
  if (data && typeof data === 'object' && (data.repo !== undefined || data.commit !== undefined)) {
    if (typeof data.repo !== 'string' || typeof data.commit !== 'string' || !data.repo || !data.commit) {
      return 'the data part needs string fields "repo" and "commit"';
    }
    return { repo: data.repo, commit: data.commit };
  }
  const text = ctx.text.trim();
  const named = { repo: /\brepo=(\S+)/.exec(text)?.[1], commit: /\bcommit=(\S+)/.exec(text)?.[1] };
  if (named.repo && named.commit) return { repo: named.repo, commit: named.commit };
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 1 && words[0]!.includes('@')) {
    const at = words[0]!.lastIndexOf('@');
    return { repo: words[0]!.slice(0, at), commit: words[0]!.slice(at + 1) };
  }
  if (words.length === 2) return { repo: words[0]!, commit: words[1]! };
  return 'send {"repo": "<path>", "commit": "<rev>"} as a data part, or the text "<repo path> <commit>"';
}

/** A bounded log: the first {@link MAX_LOG_BYTES} bytes, then a note of how much was cut. */
class RunLog {
  private readonly chunks: string[] = [];
  private bytes = 0;
  private dropped = 0;
  add(line: string): void {
    const size = Buffer.byteLength(line) + 1;
    if (this.bytes + size > MAX_LOG_BYTES) {
      this.dropped += size;
      return;
    }
    this.bytes += size;
    this.chunks.push(line);
  }
  text(): string {
    const body = this.chunks.join('\n');
    return this.dropped > 0 ? `${body}\n[log cut: ${this.dropped} more bytes]\n` : `${body}\n`;
  }
}

/** The environment of a test run: ours, without what would change how a nested node test runner reports. */
function runEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' };
  delete env.NODE_TEST_CONTEXT; // set when we run under node --test: the child would report in binary
  return env;
}

const short = (sha: string) => sha.slice(0, 7);

/** Builds the test-runner's executor. */
export function createTestRunnerExecutor(options: TestRunnerOptions = {}): AgentExecutor {
  const command = options.command ?? DEFAULT_TEST_COMMAND;
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  return {
    async execute(ctx, task) {
      const request = parseRunRequest(ctx);
      if (typeof request === 'string') return task.reject(request);
      const repo = isAbsolute(request.repo) ? request.repo : resolve(request.repo);
      if (!(await isRepository(repo))) return task.reject(`not a git repository: ${request.repo}`);
      const sha = await resolveCommit(repo, request.commit);
      if (!sha) return task.reject(`commit ${request.commit} does not exist in ${request.repo}`);
      await runAt(ctx, task, { repo, sha, command, timeLimitMs, workDir: options.workDir ?? tmpdir() });
    },
  };
}

interface RunPlan {
  repo: string;
  sha: string;
  command: string;
  timeLimitMs: number;
  workDir: string;
}

async function runAt(ctx: RequestContext, task: TaskEventSink, plan: RunPlan): Promise<void> {
  const dir = await mkdtemp(join(plan.workDir, 'a2a-test-run-'));
  const worktree = join(dir, 'checkout');
  let finish: Finish;
  try {
    finish = await runIn(worktree, ctx, task, plan);
  } finally {
    await removeWorktree(plan.repo, worktree);
    await rm(dir, { recursive: true, force: true });
  }
  // The terminal event waits for the cleanup, so whoever sees the task end sees no worktree left.
  await finish?.();
}

/** What ends the task once the worktree is gone; undefined after a cancel. */
type Finish = (() => Promise<void>) | undefined;

async function runIn(
  worktree: string,
  ctx: RequestContext,
  task: TaskEventSink,
  plan: RunPlan,
): Promise<Finish> {
  await task.working(`checking out ${short(plan.sha)}`);
  await addWorktree(plan.repo, worktree, plan.sha);
  if (ctx.signal.aborted) return;
  await task.working(`running ${plan.command} at ${short(plan.sha)}`);
  const started = Date.now();
  const proc = spawnGroup(plan.command, worktree, runEnv());
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.kill();
  }, plan.timeLimitMs);
  const onAbort = (): void => void proc.kill();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const log = new RunLog();
  const reader = new TestOutputReader();
  let updates = 0;
  let finished = 0;
  // Progress is sent one update at a time, in order; lines keep being read meanwhile.
  let progress = Promise.resolve();
  const readLines = (stream: NodeJS.ReadableStream, parse: boolean): Promise<void> =>
    new Promise((done) => {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on('line', (line) => {
        log.add(line);
        if (!parse) return;
        const result = reader.line(line);
        if (!result) return;
        finished++;
        if (updates >= MAX_PROGRESS_UPDATES && finished % 100 !== 0) return;
        updates++;
        const counts = reader.counts();
        const mark = result.outcome === 'passed' ? '✓' : result.outcome === 'failed' ? '✗' : '-';
        const text = `${mark} ${result.name} (${counts.passed} passed, ${counts.failed} failed)`;
        progress = progress
          .then(() =>
            ctx.signal.aborted
              ? undefined
              : task.status('TASK_STATE_WORKING', {
                  parts: [{ text }, { data: { test: result.name, outcome: result.outcome, ...counts } }],
                }),
          )
          // After a cancel the task is terminal and updates are refused: nothing to report.
          .catch((error: unknown) => {
            if (!ctx.signal.aborted) throw error;
          });
      });
      lines.once('close', () => done());
    });
  const [exitCode] = await Promise.all([
    proc.exited,
    readLines(proc.child.stdout!, true),
    readLines(proc.child.stderr!, false),
  ]);
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  await progress;
  if (ctx.signal.aborted) return; // canceled: the protocol layer records CANCELED
  const durationMs = Date.now() - started;
  if (timedOut) {
    return () => task.fail(`the test command did not finish within ${plan.timeLimitMs} ms and was killed`);
  }
  const counts = reader.counts();
  const summary: TestSummary = {
    ...counts,
    durationMs,
    commit: plan.sha,
    repo: plan.repo,
    command: plan.command,
    exitCode,
    failedTests: reader.failedTests(),
  };
  // A non-zero exit without any failed test counted is still a failure of the suite.
  if (exitCode !== 0 && summary.failed === 0) summary.failed = 1;
  await task.artifact({ artifactId: 'summary', name: 'summary.json', data: summary });
  await task.artifact({
    artifactId: 'log',
    name: 'test.log',
    parts: [
      {
        raw: Buffer.from(log.text()).toString('base64'),
        filename: 'test.log',
        mediaType: 'text/plain',
      },
    ],
  });
  const verdict =
    summary.failed > 0
      ? `${summary.failed} failed, ${summary.passed} passed at ${short(plan.sha)}`
      : `all ${summary.passed} passed at ${short(plan.sha)}`;
  return () => task.complete(undefined, verdict);
}

/** The test-runner's card. */
export const testRunnerCard: BuiltInCard = {
  name: 'test-runner',
  description: "Runs a git repository's unit tests at a commit and reports what passed and failed.",
  version: KIT_VERSION,
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['application/json', 'text/plain'],
  skills: [
    {
      id: 'run-tests',
      name: 'Run tests',
      description:
        'Checks a commit out into a temporary worktree, runs the test command with a time limit, streams each finished test, and completes with summary.json and test.log.',
      tags: ['ci', 'tests', 'git'],
      examples: ['{"repo": "/path/to/payments-api", "commit": "main"}', '/path/to/payments-api 4f2a9c1'],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'text/plain'],
    },
  ],
};
