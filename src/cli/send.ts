/**
 * `a2a send`: one message, then (by default) waits for its task to end, printing the task id
 * at once and progress as it comes. Ctrl-C stops waiting (the task keeps running) and says how
 * to get, follow or cancel it; `--timeout` bounds the wait; `--stream` reads the resilient
 * stream (reconnecting when the server drops).
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { A2AClient, SendInput } from '../client/client.js';
import { statusOf } from '../client/client.js';
import { textOf } from '../client/artifacts.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../model/enums.js';
import type { Part, Task } from '../model/schema.js';
import { EXIT, exitCodeOfState } from './exit-codes.js';
import { UsageError, connect, fail, type ClientCommandIO, type ConnectionOptions } from './common.js';
import { EventPrinter, jsonLine, printMessage, printTask, saveFiles, stateWord } from './render.js';

/** Options of `a2a send`. */
export interface SendOptions extends ConnectionOptions {
  stream?: boolean;
  wait?: boolean;
  task?: string;
  context?: string;
  file?: string[];
  data?: string;
  out?: string;
}

const MEDIA_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.pdf': 'application/pdf',
};

/** The message parts for `text`, `--data` and `--file`. */
export async function messageInput(text: string | undefined, opts: SendOptions): Promise<SendInput> {
  const input: SendInput = {};
  if (text !== undefined && text !== '') input.text = text;
  if (opts.data !== undefined) {
    try {
      input.data = JSON.parse(opts.data) as unknown;
    } catch {
      throw new UsageError(`--data is not JSON: ${opts.data}`);
    }
  }
  const parts: Part[] = [];
  for (const path of opts.file ?? []) {
    const bytes = await readFile(path).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read --file ${path}: ${e.code ?? e.message}`);
    });
    parts.push({
      raw: bytes.toString('base64'),
      filename: basename(path),
      mediaType: MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    });
  }
  if (parts.length) input.parts = parts;
  if (opts.task) input.taskId = opts.task;
  if (opts.context) input.contextId = opts.context;
  if (input.text === undefined && input.data === undefined && !input.parts) {
    throw new UsageError('nothing to send: give a text, --data JSON or --file PATH');
  }
  return input;
}

/** Hints after a task ends in a state that waits for the caller. */
export function waitingHint(io: ClientCommandIO, url: string, task: Task): void {
  const q = task.status.message ? textOf(task.status.message) : '';
  if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
    io.err(`the agent asks${q ? `: ${q}` : ' for input'}`);
    io.err(`  answer with: a2a send ${url} "<answer>" --task ${task.id}`);
  } else if (task.status.state === 'TASK_STATE_AUTH_REQUIRED') {
    io.err(`the agent needs other credentials${q ? `: ${q}` : ''}`);
    io.err(`  send again with a stronger token: a2a send ${url} "<text>" --task ${task.id} --token <token>`);
  }
}

/** How to find a task later, after we stopped waiting. */
export function laterHint(io: ClientCommandIO, url: string, taskId: string, state: string | undefined): void {
  io.err(`task ${taskId} is ${state ? stateWord(state) : 'still running'} on the agent; later:`);
  io.err(`  a2a get ${url} ${taskId}        (show it)`);
  io.err(`  a2a subscribe ${url} ${taskId}  (follow it)`);
  io.err(`  a2a cancel ${url} ${taskId}     (stop it)`);
}

/** The signal that ends a wait: Ctrl-C, a closed output, or `--timeout`. */
function waitSignal(io: ClientCommandIO, timeoutMs: number | undefined): AbortSignal {
  const signals: AbortSignal[] = [];
  if (io.interrupted) signals.push(io.interrupted);
  if (io.outputClosed) signals.push(io.outputClosed);
  if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs));
  return AbortSignal.any(signals);
}

/** Runs `a2a send`. */
export async function runSend(
  io: ClientCommandIO,
  url: string,
  text: string | undefined,
  opts: SendOptions,
): Promise<void> {
  let client: A2AClient | undefined;
  let taskId: string | undefined;
  let state: string | undefined;
  const signal = waitSignal(io, opts.timeout);
  const printer = new EventPrinter(io, opts.json === true);
  try {
    const input = await messageInput(text, opts);
    client = await connect(url, opts);
    if (opts.stream) {
      for await (const event of client.streamResilient({ ...input, signal }, { signal })) {
        printer.event(event);
        if (event.kind === 'task') taskId = event.task.id;
        if (event.kind === 'statusUpdate') taskId ??= event.statusUpdate.taskId;
        state = statusOf(event)?.state ?? state;
        if (event.kind === 'message' && !taskId) return io.setExitCode(EXIT.ok);
      }
      printer.finish();
      if (
        taskId &&
        state &&
        !isTerminalState(state as TaskState) &&
        !isInterruptedState(state as TaskState)
      ) {
        io.err(`a2a: the stream ended while task ${taskId} was still ${stateWord(state)}`);
        laterHint(io, url, taskId, state);
        return io.setExitCode(EXIT.stillRunning);
      }
      const task = taskId ? await client.getTask(taskId).catch(() => undefined) : undefined;
      if (task && opts.out) await reportFiles(io, opts.out, task);
      if (task && !opts.json) waitingHint(io, url, task);
      return io.setExitCode(state ? exitCodeOfState(state) : EXIT.ok);
    }
    const reply = await client.send({ ...input, returnImmediately: true, signal });
    if (reply.kind === 'message') {
      if (opts.json) io.out(jsonLine('message', reply.message));
      else printMessage(io, reply.message);
      return io.setExitCode(EXIT.ok);
    }
    let task = reply.task;
    taskId = task.id;
    state = task.status.state;
    const settled = () => isTerminalState(task.status.state) || isInterruptedState(task.status.state);
    if (!settled() && opts.wait !== false) {
      // The id at once: a long task can be found again whatever happens to this process.
      if (!opts.json)
        io.err(
          `task ${task.id} ${stateWord(task.status.state)}; waiting for it to end (Ctrl-C stops waiting)`,
        );
      if (client.card?.capabilities.streaming) {
        for await (const event of client.followTask(task.id, { signal })) {
          if (!opts.json && event.kind !== 'task') printer.event(event);
          state = statusOf(event)?.state ?? state;
        }
        printer.finish();
      }
      task = client.card?.capabilities.streaming
        ? await client.getTask(task.id, { signal })
        : await client.waitForTask(task.id, { signal, cancelOnDeadline: false });
    }
    state = task.status.state;
    if (opts.json) io.out(jsonLine('task', task));
    else printTask(io, task);
    if (opts.out) await reportFiles(io, opts.out, task);
    if (opts.wait === false && !settled()) {
      if (!opts.json) laterHint(io, url, task.id, task.status.state);
      return io.setExitCode(EXIT.ok);
    }
    if (!opts.json) waitingHint(io, url, task);
    io.setExitCode(exitCodeOfState(task.status.state));
  } catch (error) {
    printer.finish();
    if (signal.aborted && !io.outputClosed?.aborted && taskId) {
      const interrupted = io.interrupted?.aborted === true;
      io.err(interrupted ? 'a2a: interrupted; stopped waiting' : `a2a: still running after --timeout`);
      laterHint(io, url, taskId, state);
      return io.setExitCode(interrupted ? EXIT.interrupted : EXIT.stillRunning);
    }
    if (signal.aborted && io.interrupted?.aborted) return io.setExitCode(EXIT.interrupted);
    if (signal.aborted && !io.outputClosed?.aborted) {
      // --timeout passed before the agent made a task: nothing to come back to.
      io.err(`a2a: no answer from ${url} within --timeout ${opts.timeout} ms`);
      return io.setExitCode(EXIT.network);
    }
    fail(io, error, opts, url);
  } finally {
    await client?.close();
  }
}

async function reportFiles(io: ClientCommandIO, dir: string, task: Task): Promise<void> {
  const written = await saveFiles(dir, task.artifacts ?? []);
  for (const path of written) io.err(`saved ${path}`);
}
