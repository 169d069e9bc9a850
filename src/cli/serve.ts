/**
 * `a2a serve`: runs a built-in agent on JSON-RPC, REST (and gRPC when asked) until
 * SIGINT/SIGTERM, then closes gracefully.
 */
import type { Command } from 'commander';
import { builtInAgents } from '../agents/index.js';
import { createDemoAgent, isDemoAgent, type DemoAgentConfig } from '../agents/demo.js';
import type { AgentExecutor } from '../core/executor.js';
import type { AgentCardConfig } from '../server/card/build.js';
import { createA2AServer } from '../server/http.js';
import { defaultDataDir } from './demo/data-dir.js';
import { execCard, execExecutor } from './serve-exec.js';

/** Default port of `a2a serve` (the A2A samples' customary port). */
export const DEFAULT_PORT = 41241;
/** Default interface: loopback only, so a demo is never exposed by accident. */
export const DEFAULT_HOST = '127.0.0.1';
/** How long a graceful close may take before the process exits anyway. */
const CLOSE_GRACE_MS = 5_000;

/** Options of `a2a serve`. */
export interface ServeOptions {
  agent: string;
  port: number;
  host: string;
  store: string;
  grpcPort?: number;
  publicUrl?: string;
  /** Run this shell command for each message instead of a built-in agent. */
  exec?: string;
  /** Demo agents: where data goes. */
  dataDir?: string;
  /** test-runner: the test command and time limit. */
  testCommand?: string;
  timeLimit?: number;
  /** planner: its peers and its token for the deployer. */
  testRunnerUrl?: string;
  deployerUrl?: string;
  deployerToken?: string;
}

/** A running `a2a serve`: where it listens and how to stop it. */
export interface RunningAgent {
  url: string;
  cardUrl: string;
  port: number;
  grpcPort?: number;
  close(): Promise<void>;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n <= 0) throw new Error(`not a positive whole number: ${value}`);
  return n;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new Error(`not a port number: ${value}`);
  }
  return port;
}

/** Starts a built-in agent and resolves once it listens. */
export async function startBuiltInAgent(options: ServeOptions): Promise<RunningAgent> {
  if (options.exec) return hostAgent(execExecutor(options.exec), execCard(options.exec), options);
  const agent = isDemoAgent(options.agent)
    ? createDemoAgent(options.agent, demoConfig(options))
    : builtInAgents[options.agent];
  if (!agent) {
    const names = agentNames().join(', ');
    throw new Error(`unknown agent "${options.agent}" (built-in agents: ${names})`);
  }
  // Durable stores arrive with their own issue; refuse rather than silently use memory.
  if (options.store !== 'memory') {
    throw new Error(`unsupported store "${options.store}" (supported: memory)`);
  }
  return hostAgent(agent.executor, agent.card, options);
}

function demoConfig(options: ServeOptions): DemoAgentConfig {
  return {
    dataDir: options.dataDir ?? defaultDataDir(),
    ...(options.testCommand ? { testCommand: options.testCommand } : {}),
    ...(options.timeLimit !== undefined ? { timeLimitMs: options.timeLimit } : {}),
    ...(options.testRunnerUrl ? { testRunnerUrl: options.testRunnerUrl } : {}),
    ...(options.deployerUrl ? { deployerUrl: options.deployerUrl } : {}),
    ...(options.deployerToken ? { deployerToken: options.deployerToken } : {}),
  };
}

/** Every agent `a2a serve --agent` can run. */
export function agentNames(): string[] {
  return [...Object.keys(builtInAgents), 'test-runner', 'deployer', 'planner'];
}

/**
 * Hosts `executor` with `card` on JSON-RPC and REST (and gRPC when asked).
 * TODO(R2): a demo agent's `authenticate` (the deployer's bearer tokens) is to be passed as
 * createA2AServer's `authenticate` option once that option lands; until then the deployer's
 * card declares bearer auth that the server does not enforce, and every caller is anonymous.
 */
export async function hostAgent(
  executor: AgentExecutor,
  card: AgentCardConfig,
  options: Pick<ServeOptions, 'port' | 'host' | 'grpcPort' | 'publicUrl'>,
): Promise<RunningAgent> {
  const server = createA2AServer({
    agent: executor,
    card,
    store: 'memory',
    ...(options.grpcPort !== undefined ? { grpc: { port: options.grpcPort, host: options.host } } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  });
  const listening = await server.listen(options.port, options.host);
  const url = listening.url.replace(/\/+$/, '');
  return {
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    port: listening.port,
    ...(listening.grpcPort !== undefined ? { grpcPort: listening.grpcPort } : {}),
    close: () => server.close(),
  };
}

/** Runs until SIGINT/SIGTERM; a second signal exits at once. */
export async function runServe(options: ServeOptions): Promise<void> {
  const running = await startBuiltInAgent(options);
  if (options.agent === 'deployer' && !options.exec) {
    // TODO(R2): remove once hostAgent passes `authenticate` to createA2AServer.
    process.stderr.write(
      'a2a-kit: note: the deployer declares bearer auth on its card; enforcement waits for the server authenticate option\n',
    );
  }
  const grpc = running.grpcPort !== undefined ? `, grpc: ${options.host}:${running.grpcPort}` : '';
  process.stdout.write(
    `a2a-kit: ${options.exec ? 'exec' : options.agent} agent at ${running.url} (card: ${running.cardUrl}${grpc})\n`,
  );
  await new Promise<void>((resolve) => {
    let closing = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (closing) {
        process.stderr.write(`a2a-kit: ${signal} again, exiting now\n`);
        process.exit(1);
      }
      closing = true;
      const force = setTimeout(() => {
        process.stderr.write('a2a-kit: close timed out, exiting\n');
        process.exit(1);
      }, CLOSE_GRACE_MS);
      force.unref();
      running.close().then(
        () => {
          clearTimeout(force);
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve();
        },
        (err: unknown) => {
          process.stderr.write(`a2a-kit: error while closing: ${String(err)}\n`);
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Adds `serve` to the `a2a` program. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'run a built-in agent (echo, bench) over JSON-RPC and REST, and gRPC with --grpc-port, until interrupted',
    )
    .option('-a, --agent <name>', `agent to run (${agentNames().join(', ')})`, 'echo')
    .option('-p, --port <port>', 'HTTP port (0 picks a free one)', parsePort, DEFAULT_PORT)
    .option('-H, --host <host>', 'interface to listen on', DEFAULT_HOST)
    .option('--store <store>', 'task store', 'memory')
    .option(
      '--grpc-port <port>',
      'also serve gRPC on this port (0 picks a free one), listed on the card as host:port',
      parsePort,
    )
    .option('--public-url <url>', 'base URL to advertise on the card (behind a proxy)')
    .option('--exec <cmd>', 'serve a shell command as an agent: message on stdin, stdout streamed back')
    .option('--data-dir <dir>', 'demo agents: where releases and the sample repository live')
    .option('--test-command <cmd>', 'test-runner: the command that runs the tests', 'node --test')
    .option('--time-limit <ms>', 'test-runner: time limit of one test run, ms', parsePositive)
    .option('--test-runner-url <url>', 'planner: base URL of the test-runner')
    .option('--deployer-url <url>', 'planner: base URL of the deployer')
    .option('--deployer-token <token>', 'planner: bearer token for the deployer')
    .action(async (opts: ServeOptions) => {
      await runServe(opts);
    });
}
