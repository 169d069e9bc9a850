/**
 * `a2a push set|get|list|delete`: a task's push notification configs, through the client
 * library's four config operations; `a2a push listen` (push-listen.ts) receives what they send.
 * The connection options are those of every client command, so `--token` stays the bearer for
 * the agent; the config's own token is `--webhook-token`.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import type { TaskPushNotificationConfig } from '../model/schema.js';
import {
  UsageError,
  connect,
  fail,
  withConnectionOptions,
  type ClientCommandIO,
  type ConnectionOptions,
} from './common.js';
import { EXIT } from './exit-codes.js';
import { registerPushDeliveries } from './push-deliveries.js';
import { registerPushListen } from './push-listen.js';
import { jsonLine } from './render.js';

/** Most pages `push list` reads (a server paging forever cannot keep it running). */
const MAX_LIST_PAGES = 1_000;

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

interface SetOptions extends ConnectionOptions {
  webhookToken?: string;
  authScheme?: string;
  authCredentials?: string;
  id?: string;
}

/** Checks the webhook URL's form here (a typo is a usage error); the agent checks its address. */
function webhookUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`not a webhook URL: ${value} (e.g. https://hooks.example.com/a2a)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`the webhook URL must be http: or https:, got ${url.protocol}`);
  }
  return value;
}

/** The config `push set` sends. */
function configOf(taskId: string, url: string, opts: SetOptions): TaskPushNotificationConfig {
  if (opts.authCredentials !== undefined && opts.authScheme === undefined) {
    throw new UsageError('--auth-credentials needs --auth-scheme (e.g. --auth-scheme Bearer)');
  }
  return {
    taskId,
    url: webhookUrl(url),
    ...(opts.id ? { id: opts.id } : {}),
    ...(opts.webhookToken !== undefined ? { token: opts.webhookToken } : {}),
    ...(opts.authScheme !== undefined
      ? {
          authentication: {
            scheme: opts.authScheme,
            ...(opts.authCredentials !== undefined ? { credentials: opts.authCredentials } : {}),
          },
        }
      : {}),
  };
}

/** A config for people: secrets are not echoed, only whether they are set. */
function printConfig(io: ClientCommandIO, config: TaskPushNotificationConfig): void {
  io.out(`${pc.bold('push config')} ${config.id ?? '(no id)'} for task ${config.taskId ?? '?'}`);
  io.out(`  url: ${config.url}`);
  if (config.token) io.out('  token: set (sent as X-A2A-Notification-Token)');
  if (config.authentication) {
    const { scheme, credentials } = config.authentication;
    io.out(`  authentication: ${scheme}${credentials ? ' (credentials set)' : ''}`);
  }
}

/**
 * Runs `body` with a connected client, reports errors as one line with their exit code (an
 * unknown task or config is the agent's TaskNotFoundError: exit 8) and closes the client.
 */
async function withClient(
  io: ClientCommandIO,
  url: string,
  opts: ConnectionOptions,
  body: (client: Awaited<ReturnType<typeof connect>>, call: { timeoutMs?: number }) => Promise<void>,
): Promise<void> {
  let client;
  try {
    client = await connect(url, opts);
    await body(client, opts.timeout !== undefined ? { timeoutMs: opts.timeout } : {});
    io.setExitCode(EXIT.ok);
  } catch (error) {
    fail(io, error, opts, url);
  } finally {
    await client?.close();
  }
}

/** Adds `push set|get|list|delete|listen` to the `a2a` program. */
export function registerPushCommands(program: Command, io: ClientCommandIO): void {
  const push = program
    .command('push')
    .description(
      "a task's push notification configs (set, get, list, delete), a local receiver (listen), and a server's deliveries (deliveries, replay)",
    )
    .addHelpText(
      'after',
      examples([
        'a2a push listen --port 8787 --card 127.0.0.1:41241        (prints the webhook URL)',
        'a2a push set 127.0.0.1:41241 1f0c... http://127.0.0.1:8787/ --webhook-token s3cret',
        'a2a push list 127.0.0.1:41241 1f0c...',
        'a2a push deliveries --store sqlite:./a2a-data/a2a.sqlite --state dead',
      ]),
    );

  withConnectionOptions(
    push
      .command('set <url> <taskId> <webhookUrl>')
      .description('register a webhook for a task (the agent must allow its address)')
      .option('--webhook-token <token>', 'token the agent sends back as X-A2A-Notification-Token')
      .option('--auth-scheme <scheme>', 'the agent sends Authorization: <scheme> <credentials> (e.g. Bearer)')
      .option('--auth-credentials <credentials>', 'credentials for --auth-scheme')
      .option('--id <configId>', 'id of the config (default: the agent picks one)'),
  )
    .addHelpText(
      'after',
      examples([
        'a2a push set 127.0.0.1:41241 1f0c... https://hooks.example.com/a2a --webhook-token s3cret',
        'a2a push set 127.0.0.1:41241 1f0c... https://hooks.example.com/a2a --auth-scheme Bearer --auth-credentials abc --id ci',
      ]),
    )
    .action(async (url: string, taskId: string, webhook: string, opts: SetOptions) => {
      await withClient(io, url, opts, async (client, call) => {
        const config = await client.createTaskPushNotificationConfig(configOf(taskId, webhook, opts), call);
        if (opts.json) io.out(jsonLine('pushConfig', config));
        else printConfig(io, config);
      });
    });

  withConnectionOptions(
    push.command('get <url> <taskId> <configId>').description("show one of a task's push configs"),
  )
    .addHelpText('after', examples(['a2a push get 127.0.0.1:41241 1f0c... ci --json']))
    .action(async (url: string, taskId: string, configId: string, opts: ConnectionOptions) => {
      await withClient(io, url, opts, async (client, call) => {
        const config = await client.getTaskPushNotificationConfig(taskId, configId, call);
        if (opts.json) io.out(jsonLine('pushConfig', config));
        else printConfig(io, config);
      });
    });

  withConnectionOptions(push.command('list <url> <taskId>').description("list a task's push configs"))
    .addHelpText('after', examples(['a2a push list 127.0.0.1:41241 1f0c...']))
    .action(async (url: string, taskId: string, opts: ConnectionOptions) => {
      await withClient(io, url, opts, async (client, call) => {
        let pageToken: string | undefined;
        let count = 0;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const reply = await client.listTaskPushNotificationConfigs(
            taskId,
            pageToken ? { pageToken } : {},
            call,
          );
          for (const config of reply.configs ?? []) {
            count++;
            if (opts.json) io.out(jsonLine('pushConfig', config));
            else io.out(`${config.id ?? '(no id)'}  ${config.url}`);
          }
          pageToken = reply.nextPageToken || undefined;
          if (!pageToken) break;
        }
        if (count === 0 && !opts.json) io.err(`no push configs for task ${taskId}`);
      });
    });

  withConnectionOptions(
    push.command('delete <url> <taskId> <configId>').description("remove one of a task's push configs"),
  )
    .addHelpText('after', examples(['a2a push delete 127.0.0.1:41241 1f0c... ci']))
    .action(async (url: string, taskId: string, configId: string, opts: ConnectionOptions) => {
      await withClient(io, url, opts, async (client, call) => {
        await client.deleteTaskPushNotificationConfig(taskId, configId, call);
        if (opts.json) io.out(jsonLine('deleted', { taskId, id: configId }));
        else io.out(`deleted push config ${configId} of task ${taskId}`);
      });
    });

  registerPushListen(push, io);
  registerPushDeliveries(push, io);
}
