/**
 * `a2a push listen`: the client library's push receiver on a local port. Prints the URL to give
 * to `a2a push set`, then each notification as it arrives (task, state or artifact, notification
 * id, whether its signature verified); duplicates (same notification id) are dropped by the
 * receiver. Stops on Ctrl-C or SIGTERM, or with `--exit-on-terminal` at a task's final state.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import pc from 'picocolors';
import { textOf } from '../client/artifacts.js';
import { statusOf, type StreamEvent } from '../client/client.js';
import { createPushReceiver, type PushNotificationInfo } from '../client/push-receiver.js';
import { agentOriginsOf, pushJwksOnAgentOrigin, pushJwksUrlOf } from '../client/push-signature.js';
import { isTerminalState, type TaskState } from '../model/enums.js';
import { UsageError, fail, fetchCard, normalizeUrl, parseDuration, type ClientCommandIO } from './common.js';
import { EXIT, exitCodeOfState } from './exit-codes.js';
import { jsonLine, stateWord } from './render.js';

/** Options of `a2a push listen`. */
export interface ListenOptions {
  port: number;
  host: string;
  publicUrl?: string;
  jwks?: string;
  card?: string;
  token?: string;
  bearer?: string;
  task?: string[];
  exitOnTerminal?: boolean;
  timeout?: number;
  json?: boolean;
  debug?: boolean;
}

/** How long stopping waits for open connections before cutting them. */
const CLOSE_GRACE_MS = 1_000;

/** Longest text excerpt shown per notification in human output. */
const EXCERPT_CHARS = 200;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) throw new UsageError(`not a port number: ${value}`);
  return port;
}

const excerpt = (text: string) =>
  text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text.replace(/\n/g, ' ');

/** What a notification says, in a few words. */
function describeEvent(event: StreamEvent): string {
  switch (event.kind) {
    case 'task':
    case 'statusUpdate': {
      const status = statusOf(event)!;
      const text = status.message ? textOf(status.message) : '';
      return `${stateWord(status.state)}${text ? `: ${excerpt(text)}` : ''}`;
    }
    case 'artifactUpdate': {
      const { artifact, append, lastChunk } = event.artifactUpdate;
      const text = textOf(artifact);
      const flags = [append ? 'append' : '', lastChunk ? 'last chunk' : ''].filter(Boolean).join(', ');
      return `artifact ${artifact.name ?? artifact.artifactId}${flags ? ` (${flags})` : ''}${text ? `: ${excerpt(text)}` : ''}`;
    }
    case 'message':
      return `message: ${excerpt(textOf(event.message))}`;
  }
}

/** Where the agent should post, which is also the audience its signature names. */
function webhookUrlOf(opts: ListenOptions, port: number): string {
  if (opts.publicUrl) return new URL(opts.publicUrl).href; // checked in runListen
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return `http://${host}:${port}/`;
}

/** The push JWKS to verify against: `--jwks`, or the one the agent's card names. */
async function jwksOf(opts: ListenOptions): Promise<string | undefined> {
  if (opts.jwks && opts.card) throw new UsageError('give --jwks or --card, not both');
  if (opts.jwks) return normalizeUrl(opts.jwks);
  if (!opts.card) return undefined;
  const cardUrl = normalizeUrl(opts.card);
  const { card } = await fetchCard(cardUrl, {});
  if (!pushJwksUrlOf(card))
    throw new UsageError(`${card.name}'s card names no push JWKS: it does not sign notifications`);
  // Only from the agent's own origin: a card must not make this command GET any address.
  const checked = pushJwksOnAgentOrigin(card, agentOriginsOf(card, cardUrl));
  if ('refused' in checked) throw new UsageError(`${checked.refused}; give --jwks URL to trust it`);
  return checked.jwks;
}

/** Runs the receiver until a signal, `--timeout` or (with `--exit-on-terminal`) a final state. */
export async function runListen(io: ClientCommandIO, opts: ListenOptions): Promise<void> {
  if (opts.publicUrl !== undefined && !URL.canParse(opts.publicUrl)) {
    throw new UsageError(`not a URL: ${opts.publicUrl} (--public-url)`);
  }
  const jwks = await jwksOf(opts);
  // Without any credential the receiver would take anyone's POST: make a token up and say so.
  const generated =
    opts.token === undefined && opts.bearer === undefined && jwks === undefined
      ? randomBytes(18).toString('base64url')
      : undefined;
  const token = opts.token ?? generated;
  const tasks = opts.task?.length ? new Set(opts.task) : undefined;

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const onEvent = (event: StreamEvent, taskId: string, info: PushNotificationInfo): void => {
    if (opts.json) {
      const value = (event as Record<string, unknown>)[event.kind];
      io.out(JSON.stringify({ kind: event.kind, [event.kind]: value, notification: { taskId, ...info } }));
    } else {
      const signature =
        info.signature === 'verified' ? pc.green('signature verified') : 'signature not checked';
      io.out(
        `${pc.bold('task')} ${taskId} ${describeEvent(event)}  ${pc.dim(`(notification ${info.notificationId ?? '-'}, ${signature})`)}`,
      );
    }
    const state = statusOf(event)?.state;
    if (opts.exitOnTerminal && state && isTerminalState(state as TaskState)) finish(exitCodeOfState(state));
  };
  // Listening first: the signature's audience (the webhook URL) names the port.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const audience = webhookUrlOf(opts, (server.address() as AddressInfo).port);
  const handler = createPushReceiver({
    ...(token !== undefined ? { token } : {}),
    ...(opts.bearer !== undefined ? { bearer: opts.bearer } : {}),
    ...(jwks ? { signature: { jwks, audience } } : {}),
    expectTask: (taskId) => tasks === undefined || tasks.has(taskId),
    onEvent,
    onReject: ({ status, reason }) => io.err(pc.yellow(`refused a notification (${status}): ${reason}`)),
    onError: (error) => io.err(`a2a: ${error instanceof Error ? error.message : String(error)}`),
  });
  server.on('request', handler);

  const stop = (code: number) => () => finish(code);
  const onSigint = stop(opts.exitOnTerminal ? EXIT.interrupted : EXIT.ok);
  const onSigterm = stop(opts.exitOnTerminal ? EXIT.interrupted : EXIT.ok);
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  // The reader of stdout left (a closed pipe): nobody to print for.
  io.outputClosed?.addEventListener('abort', stop(EXIT.ok), { once: true });
  const timer = opts.timeout !== undefined ? setTimeout(stop(EXIT.stillRunning), opts.timeout) : undefined;
  try {
    if (opts.json) io.out(jsonLine('listening', { url: audience }));
    else io.out(`push receiver at ${audience}`);
    const checks = [
      jwks ? `signatures checked against ${jwks}` : 'signatures not checked (give --card or --jwks)',
      token !== undefined ? 'X-A2A-Notification-Token checked' : '',
      opts.bearer !== undefined ? 'Authorization: Bearer checked' : '',
    ].filter(Boolean);
    io.err(`  ${checks.join('; ')}`);
    const tokenFlag = token !== undefined ? ` --webhook-token ${token}` : '';
    const authFlag =
      opts.bearer !== undefined ? ` --auth-scheme Bearer --auth-credentials ${opts.bearer}` : '';
    io.err(
      `  register it: a2a push set ${opts.card ?? '<agent-url>'} <taskId> ${audience}${tokenFlag}${authFlag}`,
    );
    if (!opts.publicUrl && (opts.host === '0.0.0.0' || opts.host === '::')) {
      io.err(`  note: agents cannot post to ${opts.host}; give --public-url with the address they reach`);
    }
    if (generated) io.err('  (no --token, --card or --jwks given: that token was made up for this run)');
    io.setExitCode(await finished);
  } finally {
    if (timer) clearTimeout(timer);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    // Answers already sent get to finish; a connection still open after a moment is cut.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(force);
  }
}

/** Adds `listen` to the `push` command. */
export function registerPushListen(push: Command, io: ClientCommandIO): void {
  push
    .command('listen')
    .description('receive push notifications on a local port and print each one as it arrives')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', parsePort, 0)
    .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
    .option('--public-url <url>', 'the URL agents post to, when it is not http://host:port/ (a tunnel)')
    .option(
      '--jwks <url>',
      "verify signatures against this JWKS (the agent's /.well-known/a2a-push-jwks.json)",
    )
    .option('--card <url>', "verify signatures against the JWKS the agent's card names")
    .option('--token <token>', 'require this X-A2A-Notification-Token (push set --webhook-token)')
    .option(
      '--bearer <credentials>',
      'require Authorization: Bearer <credentials> (push set --auth-scheme Bearer)',
    )
    .option(
      '--task <id>',
      'accept notifications of this task only (repeatable)',
      (v: string, p: string[] = []) => [...p, v],
    )
    .option('--exit-on-terminal', "exit at the first task's final state, with that state's exit code")
    .option('--timeout <duration>', 'stop after this long (exit 9)', parseDuration)
    .option('--json', 'print each notification as one NDJSON line (after a {"kind":"listening"} line)')
    .option('--debug', 'print stack traces of errors')
    .addHelpText(
      'after',
      `\nExamples:\n${[
        'a2a push listen --port 8787 --card 127.0.0.1:41241',
        'a2a push listen --token s3cret --json',
        'a2a push listen --card 127.0.0.1:41241 --exit-on-terminal --timeout 10m   (in a script)',
      ]
        .map((l) => `  $ ${l}`)
        .join('\n')}\n`,
    )
    .action(async (opts: ListenOptions) => {
      try {
        await runListen(io, opts);
      } catch (error) {
        fail(io, error, opts);
      }
    });
}
