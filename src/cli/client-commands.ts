/**
 * The client side of the `a2a` command: `a2a card`, `a2a send`, `a2a get`.
 * `--json` prints ProtoJSON, one object per line; otherwise readable text. The exit code is
 * non-zero on errors and for tasks that end FAILED, CANCELED or REJECTED.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { A2AClient, statusOf, toStreamResponse, type StreamEvent } from '../client/client.js';
import { AgentCardResolver } from '../client/card-resolver.js';
import { bindingName, type BindingName } from '../client/binding-selection.js';
import { TaskState } from '../model/enums.js';
import type { Message, Task, TaskStatus } from '../model/schema.js';
import { textOf } from '../client/artifacts.js';
import {
  addCardVerifyFlags,
  addClientAuthFlags,
  cardVerifyHook,
  clientHeaders,
  type CardVerifyFlags,
  type ClientAuthFlags,
} from './security-flags.js';

/** Where the commands write (replaceable in tests). */
export interface ClientCommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  setExitCode: (code: number) => void;
  /** Aborted when the reader of `out` went away (a closed pipe): the command stops quietly. */
  outputClosed?: AbortSignal;
}

/**
 * The process's stdout and stderr. A closed stdout (`a2a send ... | head -2`: EPIPE) is not a
 * failure of the command: it stops what it is doing, prints nothing more and exits 0, as a
 * reader that has seen enough is the reader's choice.
 */
function processIO(): ClientCommandIO {
  const closed = new AbortController();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed.abort(error);
  });
  return {
    out: (l) => {
      if (!closed.signal.aborted) process.stdout.write(`${l}\n`);
    },
    err: (l) => process.stderr.write(`${l}\n`),
    setExitCode: (c) => {
      if (!closed.signal.aborted) process.exitCode = c;
    },
    outputClosed: closed.signal,
  };
}

const FAILED_STATES = new Set<string>([TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);
const short = (state: string) =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

function statusLine(status: TaskStatus): string {
  const text = status.message ? textOf(status.message) : '';
  const color = FAILED_STATES.has(status.state)
    ? pc.red
    : status.state === TaskState.COMPLETED
      ? pc.green
      : pc.yellow;
  return `${color(short(status.state))}${text ? `: ${text}` : ''}`;
}

function printTask(io: ClientCommandIO, task: Task): void {
  io.out(`${pc.bold('task')} ${task.id}${task.contextId ? ` (context ${task.contextId})` : ''}`);
  io.out(`  ${statusLine(task.status)}`);
  for (const a of task.artifacts ?? []) {
    io.out(`  ${pc.cyan(`artifact ${a.name ?? a.artifactId}`)}:`);
    const text = textOf(a);
    if (text) io.out(text.replace(/^/gm, '    '));
    for (const p of a.parts) if (p.data !== undefined) io.out(`    ${JSON.stringify(p.data)}`);
  }
}

function printMessage(io: ClientCommandIO, message: Message): void {
  io.out(textOf(message) || JSON.stringify(message.parts));
}

function printEvent(io: ClientCommandIO, event: StreamEvent): void {
  switch (event.kind) {
    case 'task':
      io.out(`${pc.bold('task')} ${event.task.id}: ${statusLine(event.task.status)}`);
      break;
    case 'message':
      printMessage(io, event.message);
      break;
    case 'statusUpdate':
      io.out(statusLine(event.statusUpdate.status));
      break;
    case 'artifactUpdate': {
      const a = event.artifactUpdate.artifact;
      io.out(`${pc.cyan(`[${a.name ?? a.artifactId}]`)} ${textOf(a).trimEnd()}`);
      break;
    }
  }
}

function fail(io: ClientCommandIO, error: unknown): void {
  if (io.outputClosed?.aborted) return; // the reader left: nothing to report to anyone
  io.err(pc.red(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`));
  io.setExitCode(1);
}

async function connect(
  url: string,
  binding: string | undefined,
  auth: ClientAuthFlags = {},
): Promise<A2AClient> {
  let bindings: BindingName[] | undefined;
  if (binding) {
    const b = bindingName(binding);
    if (!b) throw new Error(`unknown binding "${binding}" (use jsonrpc, rest or grpc)`);
    bindings = [b];
  }
  const headers = clientHeaders(auth);
  return A2AClient.connect(url, { bindings, ...(Object.keys(headers).length > 0 ? { headers } : {}) });
}

/** Adds `card`, `send` and `get` to the `a2a` program. */
export function registerClientCommands(program: Command, io: ClientCommandIO = processIO()): void {
  const cardCommand = program
    .command('card <url>')
    .description("fetch and validate an agent's card")
    .option('--json', 'print the card as JSON');
  addCardVerifyFlags(cardCommand).action(async (url: string, opts: { json?: boolean } & CardVerifyFlags) => {
    try {
      const verify = cardVerifyHook(opts, (r) => io.err(`signature: verified (kid ${r.kid}, ${r.alg})`));
      const resolved = await new AgentCardResolver(verify ? { verify } : {}).resolve(url);
      for (const note of resolved.notes) io.err(pc.yellow(`note: ${note}`));
      const card = resolved.card;
      if (opts.json) return io.out(JSON.stringify(card));
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
      for (const s of card.skills) io.out(`  skill ${s.id}: ${s.name}: ${s.description}`);
    } catch (error) {
      fail(io, error);
    }
  });

  const sendCommand = program
    .command('send <url> <text>')
    .description('send a message to an agent')
    .option('--stream', 'stream the task as it runs')
    .option('--binding <binding>', 'jsonrpc, rest or grpc')
    .option('--task <id>', 'continue this task')
    .option('--context <id>', 'send in this context')
    .option('--json', 'print ProtoJSON, one object per line');
  addClientAuthFlags(sendCommand).action(
    async (
      url: string,
      text: string,
      opts: {
        stream?: boolean;
        binding?: string;
        task?: string;
        context?: string;
        json?: boolean;
      } & ClientAuthFlags,
    ) => {
      let client: A2AClient | undefined;
      try {
        client = await connect(url, opts.binding, opts);
        const input = { text, taskId: opts.task, contextId: opts.context, signal: io.outputClosed };
        let finalState: string | undefined;
        if (opts.stream) {
          for await (const event of client.stream(input)) {
            if (opts.json) io.out(JSON.stringify(toStreamResponse(event)));
            else printEvent(io, event);
            finalState = statusOf(event)?.state ?? finalState;
          }
        } else {
          const reply = await client.send(input);
          if (reply.kind === 'message') {
            if (opts.json) io.out(JSON.stringify(reply.message));
            else printMessage(io, reply.message);
          } else {
            finalState = reply.task.status.state;
            if (opts.json) io.out(JSON.stringify(reply.task));
            else printTask(io, reply.task);
          }
        }
        if (finalState && FAILED_STATES.has(finalState)) io.setExitCode(1);
      } catch (error) {
        fail(io, error);
      } finally {
        await client?.close();
      }
    },
  );

  const getCommand = program
    .command('get <url> <taskId>')
    .description('show a task')
    .option('--binding <binding>', 'jsonrpc, rest or grpc')
    .option('--json', 'print the task as ProtoJSON');
  addClientAuthFlags(getCommand).action(
    async (url: string, taskId: string, opts: { binding?: string; json?: boolean } & ClientAuthFlags) => {
      let client: A2AClient | undefined;
      try {
        client = await connect(url, opts.binding, opts);
        const task = await client.getTask(taskId);
        if (opts.json) io.out(JSON.stringify(task));
        else printTask(io, task);
        if (FAILED_STATES.has(task.status.state)) io.setExitCode(1);
      } catch (error) {
        fail(io, error);
      } finally {
        await client?.close();
      }
    },
  );
}
