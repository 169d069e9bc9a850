/**
 * `a2a chat`: a conversation on one context. Each line is a message; output streams as it
 * arrives; when the task asks a question the next line answers it on the same task; `/token T`
 * switches credentials (the answer to AUTH_REQUIRED); `/quit` or end of input leaves. On a
 * terminal, readline echoes what is typed (on stderr, beside the prompt) and Ctrl-C stops waiting
 * for the running turn (the task goes on; the hint says how to reach it) or, at the prompt, leaves.
 */
import { createInterface } from 'node:readline';
import type { A2AClient } from '../client/client.js';
import { statusOf } from '../client/client.js';
import { textOf } from '../client/artifacts.js';
import { isInterruptedState, type TaskState } from '../model/enums.js';
import { connect, fail, type ClientCommandIO, type ConnectionOptions } from './common.js';
import { EXIT } from './exit-codes.js';
import { EventPrinter, stateWord } from './render.js';
import { laterHint } from './send.js';

/** Runs `a2a chat` on stdin. */
export async function runChat(io: ClientCommandIO, url: string, opts: ConnectionOptions): Promise<void> {
  let client: A2AClient | undefined;
  const options = { ...opts };
  try {
    client = await connect(url, options);
    const card = client.card!;
    io.err(`chatting with ${card.name} (${card.description}); /token T switches token, /quit leaves`);
    const tty = process.stdin.isTTY === true;
    // A terminal is in raw mode under readline: without an output nothing typed would show.
    const lines = createInterface({
      input: process.stdin,
      terminal: tty,
      ...(tty ? { output: process.stderr, prompt: '> ' } : {}),
    });
    const prompt = () => tty && lines.prompt();
    // Raw mode turns Ctrl-C into a key, not a signal: stop the running turn, or leave.
    let turn: AbortController | undefined;
    lines.on('SIGINT', () => {
      if (turn) turn.abort(new Error('interrupted'));
      else lines.close();
    });
    let contextId: string | undefined;
    let waitingTask: string | undefined;
    prompt();
    for await (const raw of lines) {
      const line = raw.trim();
      if (line === '/quit' || line === '/exit') break;
      if (line === '') {
        prompt();
        continue;
      }
      if (line.startsWith('/token ')) {
        options.token = line.slice(7).trim();
        await client.close();
        client = await connect(url, options);
        io.err('token switched');
        prompt();
        continue;
      }
      const printer = new EventPrinter(io, opts.json === true);
      let state: string | undefined;
      let question = '';
      let taskId: string | undefined;
      turn = new AbortController();
      const input = {
        text: line,
        signal: turn.signal,
        ...(contextId ? { contextId } : {}),
        ...(waitingTask ? { taskId: waitingTask } : {}),
      };
      try {
        const events = card.capabilities.streaming
          ? client.streamResilient(input)
          : sendAsEvents(client, input);
        for await (const event of events) {
          printer.event(event);
          if (event.kind === 'task') {
            contextId ??= event.task.contextId;
            taskId = event.task.id;
          }
          if (event.kind === 'message') contextId ??= event.message.contextId;
          if (event.kind === 'statusUpdate') taskId ??= event.statusUpdate.taskId;
          const status = statusOf(event);
          if (status) {
            state = status.state;
            question = status.message ? textOf(status.message) : '';
          }
        }
        printer.finish();
      } catch (error) {
        printer.finish();
        if (turn.signal.aborted && taskId) laterHint(io, url, taskId, state);
        else if (!turn.signal.aborted) fail(io, error, opts, url);
      } finally {
        turn = undefined;
      }
      waitingTask = state && isInterruptedState(state as TaskState) ? taskId : undefined;
      if (waitingTask && !opts.json) {
        io.err(
          state === 'TASK_STATE_AUTH_REQUIRED'
            ? `(${stateWord(state)}: ${question || 'other credentials needed'}; /token T, then answer)`
            : `(${stateWord(state!)}: your next line answers${question ? ` "${question}"` : ''})`,
        );
      }
      prompt();
    }
    // Leaving before end of input: let go of stdin, or the process would wait on it.
    lines.close();
    process.stdin.destroy();
    io.setExitCode(EXIT.ok);
  } catch (error) {
    fail(io, error, opts, url);
  } finally {
    await client?.close();
  }
}

async function* sendAsEvents(client: A2AClient, input: Parameters<A2AClient['send']>[0]) {
  const reply = await client.send(input);
  if (reply.kind === 'message') yield { kind: 'message' as const, message: reply.message };
  else yield { kind: 'task' as const, task: reply.task };
}
