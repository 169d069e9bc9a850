#!/usr/bin/env node
/** The `a2a` command: serve agents, talk to any A2A agent, run the demo. */
import { Command, CommanderError } from 'commander';
import { KIT_VERSION } from '../agents/card.js';
import { registerClientCommands } from './client-commands.js';
import { registerDemoCommand } from './demo/demo.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { registerServeCommand } from './serve.js';
import { registerInspectCommand } from './inspect.js';
import { registerMcpCommand } from './mcp.js';

const EXAMPLES = `
Examples:
  $ a2a demo                                   start the demo agents and ship payments-api
  $ a2a serve --agent echo                     serve the echo agent on http://127.0.0.1:41241
  $ a2a card 127.0.0.1:41241                   show an agent's card
  $ a2a send 127.0.0.1:41241 hello             send a message and wait for the answer
  $ a2a chat 127.0.0.1:41241                   talk turn by turn
  $ a2a push listen --card 127.0.0.1:41241     receive signed push notifications (prints the URL)
  $ a2a push set 127.0.0.1:41241 TASK URL      have the agent post a task's updates to URL
  $ a2a inspect 127.0.0.1:41241                look inside an agent from a browser
  $ a2a serve --exec "tr a-z A-Z" --port 0     any command as an agent
  $ a2a mcp 127.0.0.1:41241                    an agent as an MCP server (stdio; --http for HTTP)
  $ a2a serve --mcp "node server.js"           an MCP server's tools as an agent`;

/** Builds the `a2a` program with every command registered. */
function buildProgram(): Command {
  const program = new Command('a2a')
    .description('A2A (Agent2Agent) protocol v1.0 toolkit: serve agents and talk to them')
    .version(KIT_VERSION)
    .showHelpAfterError('(a2a --help lists commands, a2a <command> --help their options)')
    .addHelpText('after', `${EXAMPLES}\n${EXIT_CODES_HELP}`)
    // Set before the commands are added so that they inherit it: usage errors and --help
    // end in the catch below instead of a process.exit inside commander.
    .exitOverride();
  registerServeCommand(program);
  registerClientCommands(program);
  registerDemoCommand(program);
  registerInspectCommand(program);
  registerMcpCommand(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const quiet = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      process.exitCode = quiet || err.exitCode === 0 ? 0 : EXIT.usage;
      return;
    }
    process.stderr.write(`a2a: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
    if (argv.includes('--debug') && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = /^not a |^unknown |^unsupported /.test(err instanceof Error ? err.message : '')
      ? EXIT.usage
      : EXIT.failed;
  }
}

await main(process.argv);
