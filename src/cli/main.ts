#!/usr/bin/env node
/** The `a2a` command: serve built-in agents, and talk to any A2A agent. */
import { Command, CommanderError } from 'commander';
import { KIT_VERSION } from '../agents/card.js';
import { registerClientCommands } from './client-commands.js';
import { registerServeCommand } from './serve.js';

/** Builds the `a2a` program with every command registered. */
function buildProgram(): Command {
  const program = new Command('a2a')
    .description('A2A (Agent2Agent) protocol v1.0 toolkit: serve agents and talk to them')
    .version(KIT_VERSION)
    // Set before the commands are added so that they inherit it: usage errors and --help
    // end in the catch below instead of a process.exit inside commander.
    .exitOverride();
  registerServeCommand(program);
  registerClientCommands(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    process.stderr.write(`a2a: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);
