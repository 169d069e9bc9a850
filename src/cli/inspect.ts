/**
 * `a2a inspect [url] [--port P]`: serves the web inspector on loopback until SIGINT/SIGTERM
 * and prints its address (with the run's token, and the agent to open when given).
 */
import type { Command } from 'commander';
import { startInspector } from '../inspector/server.js';
import { normalizeUrl } from './common.js';

/** Default port of `a2a inspect`. */
export const DEFAULT_INSPECT_PORT = 41240;

/** Adds `inspect` to the `a2a` program. */
export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description(
      'serve the web inspector on 127.0.0.1 and print its address (card, conversation, tasks, push, raw wire)',
    )
    .argument('[url]', 'agent to open connected')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_INSPECT_PORT))
    .action(async (url: string | undefined, options: { port: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`not a port: ${options.port}`);
      const inspector = await startInspector({ port, host: '127.0.0.1' });
      process.stdout.write(
        `a2a-kit: inspector at ${inspector.pageUrl(url ? normalizeUrl(url) : undefined)}\n`,
      );
      process.stdout.write('Open that address in a browser (it carries this run’s token). Ctrl-C stops.\n');
      await new Promise<void>((resolve) => {
        const onSignal = (): void => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          inspector.close().then(resolve, resolve);
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
    });
}
