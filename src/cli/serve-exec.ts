/**
 * `a2a serve --exec "CMD"`: any command as an agent. Each message runs CMD in its own process
 * group: the message's text (and its data part as JSON on a line of its own) on stdin, stdout
 * streamed line by line as chunks of the artifact `stdout`, the exit code as the final state
 * (0 completed, otherwise failed with the last line of stderr). CancelTask kills the group.
 */
import { createInterface } from 'node:readline';
import { spawnGroup } from '../agents/test-runner/process-tree.js';
import type { AgentExecutor } from '../core/executor.js';
import type { AgentCardConfig } from '../server/card/build.js';
import { KIT_VERSION } from '../agents/card.js';

/** Lines of stdout streamed per task before the rest is dropped (with a note). */
const MAX_LINES = 100_000;

/** The executor that runs `command` for each message. */
export function execExecutor(command: string, cwd = process.cwd()): AgentExecutor {
  return {
    async execute(ctx, task) {
      await task.working(`running ${command}`);
      const proc = spawnGroup(command, cwd, { ...process.env }, 'pipe');
      const onAbort = (): void => void proc.kill();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const stdin = proc.child.stdin!;
      stdin.on('error', () => undefined); // a command that does not read its input
      stdin.end(ctx.data !== undefined ? `${ctx.text}\n${JSON.stringify(ctx.data)}\n` : `${ctx.text}\n`);
      let lastErr = '';
      proc.child.stderr!.on('data', (c: Buffer) => {
        const lines = c.toString().trim().split('\n');
        lastErr = lines[lines.length - 1] || lastErr;
      });
      let sent = 0;
      let chain = Promise.resolve();
      const lines = createInterface({ input: proc.child.stdout!, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (sent >= MAX_LINES) return;
        const first = sent === 0;
        sent++;
        const text = sent === MAX_LINES ? `${line}\n[output cut at ${MAX_LINES} lines]\n` : `${line}\n`;
        chain = chain.then(() =>
          ctx.signal.aborted
            ? undefined
            : task
                .artifact({ artifactId: 'stdout', name: 'stdout', text }, { append: !first })
                .catch(() => undefined),
        );
      });
      const closed = new Promise<void>((r) => lines.once('close', () => r()));
      const [code] = await Promise.all([proc.exited, closed]);
      await chain;
      ctx.signal.removeEventListener('abort', onAbort);
      if (ctx.signal.aborted) return;
      if (sent > 0)
        await task.artifact(
          { artifactId: 'stdout', parts: [{ text: '' }] },
          { append: true, lastChunk: true },
        );
      if (code === 0) return task.complete();
      return task.fail(`${command} exited with ${code ?? 'a signal'}${lastErr ? `: ${lastErr}` : ''}`);
    },
  };
}

/** The card of an `--exec` agent. */
export function execCard(command: string): AgentCardConfig {
  return {
    name: 'exec',
    description: `Runs \`${command}\` for each message: the message on stdin, stdout streamed back.`,
    version: KIT_VERSION,
    skills: [
      {
        id: 'exec',
        name: 'Run the command',
        description:
          'Your message is the command input; its output is the artifact "stdout"; its exit code the state.',
        tags: ['exec', 'shell'],
      },
    ],
  };
}
