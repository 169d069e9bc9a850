/**
 * The client side of the `a2a` command: `card`, `send`, `chat`, `get`, `cancel`, `subscribe`,
 * `list`, `push`. Every command takes the connection options (see common.ts); `--json` prints
 * NDJSON in one shape (see render.ts); exit codes are those of exit-codes.ts.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { statusOf } from '../client/client.js';
import { TASK_STATE_NAMES, type TaskState } from '../model/enums.js';
import { runChat } from './chat.js';
import { registerPushCommands } from './push-commands.js';
import {
  UsageError,
  connect,
  fail,
  fetchCard,
  normalizeUrl,
  processIO,
  withConnectionOptions,
  type ClientCommandIO,
  type ConnectionOptions,
} from './common.js';
import { EXIT, exitCodeOfState } from './exit-codes.js';
import { cardVerifyHook, type CardVerifyFlags } from './security-flags.js';
import { EventPrinter, jsonLine, printTask, stateWord } from './render.js';
import { laterHint, runSend, waitingHint, type SendOptions } from './send.js';

export type { ClientCommandIO } from './common.js';

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

function parseState(value: string): TaskState {
  const upper = `TASK_STATE_${value
    .toUpperCase()
    .replace(/-/g, '_')
    .replace(/^TASK_STATE_/, '')}`;
  const state = TASK_STATE_NAMES.find((s) => s === upper);
  if (!state) throw new UsageError(`unknown state ${value} (e.g. working, completed, input-required)`);
  return state;
}

/** Adds the client commands to the `a2a` program. */
export function registerClientCommands(program: Command, io: ClientCommandIO = processIO()): void {
  withConnectionOptions(
    program
      .command('card <url>')
      .description("fetch, validate and show an agent's card")
      .option('--verify', "check the card's signature against --jwks URL or --key FILE")
      .option('--jwks <url>', 'trusted JWKS to verify the card against')
      .option('--key <file>', 'trusted public key: a JWK or JWKS (JSON) or a PEM public key'),
  )
    .addHelpText('after', examples(['a2a card 127.0.0.1:41241', 'a2a card https://agent.example.com --json']))
    .action(async (url: string, opts: ConnectionOptions & CardVerifyFlags) => {
      try {
        const verify = cardVerifyHook(opts, (v) => io.err(`signature: verified (kid ${v.kid}, ${v.alg})`));
        const { card, notes } = await fetchCard(normalizeUrl(url), opts, verify);
        for (const note of notes) io.err(pc.yellow(`note: ${note}`));
        if (opts.json) return io.out(jsonLine('card', card));
        io.out(`${pc.bold(card.name)} ${card.version}: ${card.description}`);
        for (const i of card.supportedInterfaces) {
          io.out(
            `  ${i.protocolBinding} ${i.protocolVersion} ${i.url}${i.tenant ? ` (tenant ${i.tenant})` : ''}`,
          );
        }
        const caps = Object.entries(card.capabilities)
          .filter(([, v]) => v === true)
          .map(([k]) => k);
        io.out(`  capabilities: ${caps.join(', ') || 'none'}`);
        if (card.securitySchemes) io.out(`  security: ${Object.keys(card.securitySchemes).join(', ')}`);
        for (const s of card.skills) io.out(`  skill ${s.id}: ${s.name}: ${s.description}`);
      } catch (error) {
        fail(io, error, opts, url);
      }
    });

  withConnectionOptions(
    program
      .command('send <url> [text]')
      .description('send a message; waits for the task to end unless --no-wait')
      .option('--stream', 'stream the task as it runs (reconnects when the connection drops)')
      .option('--no-wait', 'print the task as soon as it exists and return')
      .option('--task <id>', 'continue this task (answer its question)')
      .option('--context <id>', 'send in this context')
      .option('--file <path>', 'attach a file (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
      .option('--data <json>', 'attach a data part (JSON)')
      .option('--out <dir>', 'save file parts of the result here'),
  )
    .addHelpText(
      'after',
      examples([
        'a2a send 127.0.0.1:41241 hello',
        "a2a send 127.0.0.1:41241 'slow:75000' --timeout 2m",
        "a2a send 127.0.0.1:41241 'stream:5' --stream --json",
        'a2a send 127.0.0.1:41241 yes --task 1f0c...   (answer an input-required task)',
        'a2a send 127.0.0.1:41241 --data \'{"repo": "/tmp/r", "commit": "main"}\' --out ./results',
      ]),
    )
    .action(async (url: string, text: string | undefined, opts: SendOptions) => {
      await runSend(io, url, text, opts);
    });

  withConnectionOptions(
    program
      .command('chat <url>')
      .description('talk with an agent turn by turn; answers its questions; shows output as it streams'),
  )
    .addHelpText(
      'after',
      examples(['a2a chat 127.0.0.1:41241', 'a2a chat 127.0.0.1:41243 --token demo-staging-token']),
    )
    .action(async (url: string, opts: ConnectionOptions) => {
      await runChat(io, url, opts);
    });

  withConnectionOptions(program.command('get <url> <taskId>').description('show a task'))
    .option('--history <n>', 'include the last n messages', (v) => Number(v))
    .addHelpText(
      'after',
      examples(['a2a get 127.0.0.1:41241 1f0c...', 'a2a get 127.0.0.1:41241 1f0c... --json']),
    )
    .action(async (url: string, taskId: string, opts: ConnectionOptions & { history?: number }) => {
      let client;
      try {
        client = await connect(url, opts);
        const task = await client.getTask(
          taskId,
          opts.history !== undefined ? { historyLength: opts.history } : {},
        );
        if (opts.json) io.out(jsonLine('task', task));
        else {
          printTask(io, task);
          waitingHint(io, url, task);
        }
        io.setExitCode(
          exitCodeOfState(task.status.state) === EXIT.stillRunning
            ? EXIT.ok
            : exitCodeOfState(task.status.state),
        );
      } catch (error) {
        fail(io, error, opts, url);
      } finally {
        await client?.close();
      }
    });

  withConnectionOptions(program.command('cancel <url> <taskId>').description('cancel a task'))
    .addHelpText('after', examples(['a2a cancel 127.0.0.1:41241 1f0c...']))
    .action(async (url: string, taskId: string, opts: ConnectionOptions) => {
      let client;
      try {
        client = await connect(url, opts);
        const task = await client.cancelTask(taskId);
        if (opts.json) io.out(jsonLine('task', task));
        else printTask(io, task);
        io.setExitCode(EXIT.ok);
      } catch (error) {
        fail(io, error, opts, url);
      } finally {
        await client?.close();
      }
    });

  withConnectionOptions(
    program
      .command('subscribe <url> <taskId>')
      .description('follow a running task to its end (reconnects as needed)'),
  )
    .addHelpText(
      'after',
      examples(['a2a subscribe 127.0.0.1:41241 1f0c...', 'a2a subscribe 127.0.0.1:41241 1f0c... --json']),
    )
    .action(async (url: string, taskId: string, opts: ConnectionOptions) => {
      let client;
      let state: string | undefined;
      const printer = new EventPrinter(io, opts.json === true);
      const signals = [io.interrupted, io.outputClosed].filter((s): s is AbortSignal => s !== undefined);
      if (opts.timeout !== undefined) signals.push(AbortSignal.timeout(opts.timeout));
      const signal = AbortSignal.any(signals);
      try {
        client = await connect(url, opts);
        for await (const event of client.followTask(taskId, { signal })) {
          printer.event(event);
          state = statusOf(event)?.state ?? state;
        }
        printer.finish();
        io.setExitCode(state ? exitCodeOfState(state) : EXIT.ok);
      } catch (error) {
        printer.finish();
        if (signal.aborted && !io.outputClosed?.aborted) {
          laterHint(io, url, taskId, state);
          return io.setExitCode(io.interrupted?.aborted ? EXIT.interrupted : EXIT.stillRunning);
        }
        fail(io, error, opts, url);
      } finally {
        await client?.close();
      }
    });

  withConnectionOptions(program.command('list <url>').description('list your tasks on an agent'))
    .option('--context <id>', 'only tasks of this context')
    .option('--state <state>', 'only tasks in this state (working, completed, input-required, ...)')
    .option('--all', 'every page, not only the first')
    .addHelpText(
      'after',
      examples(['a2a list 127.0.0.1:41241', 'a2a list 127.0.0.1:41241 --state working --all --json']),
    )
    .action(
      async (url: string, opts: ConnectionOptions & { context?: string; state?: string; all?: boolean }) => {
        let client;
        try {
          const request = {
            ...(opts.context ? { contextId: opts.context } : {}),
            ...(opts.state ? { status: parseState(opts.state) } : {}),
          };
          client = await connect(url, opts);
          const tasks = opts.all
            ? client.listAllTasks(request)
            : (async function* (c) {
                yield* (await c.listTasks(request)).tasks;
              })(client);
          for await (const task of tasks) {
            if (opts.json) io.out(jsonLine('task', task));
            else
              io.out(`${task.id}  ${stateWord(task.status.state).padEnd(14)} ${task.status.timestamp ?? ''}`);
          }
          io.setExitCode(EXIT.ok);
        } catch (error) {
          fail(io, error, opts, url);
        } finally {
          await client?.close();
        }
      },
    );

  registerPushCommands(program, io);
}
