/**
 * `a2a serve`: runs a built-in agent on JSON-RPC, REST (and gRPC when asked) until
 * SIGINT/SIGTERM, then closes gracefully.
 */
import type { Command } from 'commander';
import { builtInAgents } from '../agents/index.js';
import { createDemoAgent, isDemoAgent, type DemoAgent, type DemoAgentConfig } from '../agents/demo.js';
import type { AgentExecutor } from '../core/executor.js';
import type { AgentCardConfig } from '../server/card/build.js';
import type { Authenticate } from '../bindings/auth-request.js';
import { isStoreSpec } from '../core/stores/open.js';
import { createA2AServer, DEFAULT_STORE } from '../server/http.js';
import type { A2AServerOptions } from '../server/options.js';
import { createLogger } from '../server/observability/logging.js';
import { addServeSecurityFlags, serveSecurityOptions, type ServeSecurityFlags } from './security-flags.js';
import { defaultDataDir } from './demo/data-dir.js';
import { execCard, execExecutor } from './serve-exec.js';
import { openMcpAgent } from './serve-mcp.js';

/** Default port of `a2a serve` (the A2A samples' customary port). */
export const DEFAULT_PORT = 41241;
/** Default interface: loopback only, so a demo is never exposed by accident. */
export const DEFAULT_HOST = '127.0.0.1';
/** How long a graceful close may take before the process exits anyway. */
const CLOSE_GRACE_MS = 5_000;

/** Options of `a2a serve`. */
export interface ServeOptions extends ServeSecurityFlags {
  agent: string;
  port: number;
  host: string;
  store: string;
  grpcPort?: number;
  publicUrl?: string;
  /** Run this shell command for each message instead of a built-in agent. */
  exec?: string;
  /** Serve the tools of the MCP server this command starts (stdio). */
  mcp?: string;
  /** Serve the tools of the MCP server at this Streamable HTTP URL. */
  mcpUrl?: string;
  /** Demo agents: where data goes. */
  dataDir?: string;
  /** test-runner: the test command and time limit. */
  testCommand?: string;
  timeLimit?: number;
  /** planner: its peers and its token for the deployer. */
  testRunnerUrl?: string;
  deployerUrl?: string;
  deployerToken?: string;
  /** planner: think with the model at this OpenAI-compatible base URL (with `model`). */
  modelUrl?: string;
  /** planner: the model's name at `modelUrl`. */
  model?: string;
  /** pino level; `silent` turns logs off. @default 'info' */
  logLevel?: string;
  /** `pretty` or `json`. @default pretty on a terminal, json otherwise */
  logFormat?: string;
  /** Push notifications (configs and signed delivery); `--no-push` turns them off. @default true */
  push?: boolean;
  /** Webhook hosts the address guard would refuse (loopback, private): allowed anyway. */
  pushAllowHost?: string[];
  /** Accept `http:` webhook URLs. */
  pushAllowHttp?: boolean;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function parseLogLevel(value: string): string {
  if (!LOG_LEVELS.includes(value)) throw new Error(`unknown log level "${value}" (${LOG_LEVELS.join(', ')})`);
  return value;
}

function parseLogFormat(value: string): string {
  if (value !== 'pretty' && value !== 'json') throw new Error(`unknown log format "${value}" (pretty, json)`);
  return value;
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
  if ((options.modelUrl !== undefined || options.model !== undefined) && options.agent !== 'planner') {
    throw new Error('unsupported use of --model-url and --model: they are for --agent planner');
  }
  if (options.exec) return hostAgent(execExecutor(options.exec), execCard(options.exec), options);
  if (options.mcp !== undefined || options.mcpUrl !== undefined) return hostMcpAgent(options);
  if (isDemoAgent(options.agent)) {
    const demo = createDemoAgent(options.agent, demoConfig(options));
    return hostAgent(demo.executor, demo.card, options, demo.authenticate, demo);
  }
  const agent = Object.hasOwn(builtInAgents, options.agent) ? builtInAgents[options.agent] : undefined;
  if (!agent) {
    const names = agentNames().join(', ');
    throw new Error(`unknown agent "${options.agent}" (built-in agents: ${names})`);
  }
  return hostAgent(agent.executor, agent.card, options);
}

/** Hosts the tools of an MCP server (`--mcp` / `--mcp-url`); closing the agent closes the MCP client. */
async function hostMcpAgent(options: ServeOptions): Promise<RunningAgent> {
  if (options.mcp !== undefined && options.mcpUrl !== undefined)
    throw new Error('unsupported combination of --mcp and --mcp-url: use one');
  const mcp = await openMcpAgent(
    options.mcpUrl !== undefined ? { url: options.mcpUrl } : { command: options.mcp! },
  );
  let running: RunningAgent;
  try {
    running = await hostAgent(mcp.executor, mcp.card, options);
  } catch (error) {
    await mcp.close();
    throw error;
  }
  return {
    ...running,
    async close() {
      await running.close();
      await mcp.close();
    },
  };
}

function demoConfig(options: ServeOptions): DemoAgentConfig {
  return {
    dataDir: options.dataDir ?? defaultDataDir(),
    ...(options.testCommand ? { testCommand: options.testCommand } : {}),
    ...(options.timeLimit !== undefined ? { timeLimitMs: options.timeLimit } : {}),
    ...(options.testRunnerUrl ? { testRunnerUrl: options.testRunnerUrl } : {}),
    ...(options.deployerUrl ? { deployerUrl: options.deployerUrl } : {}),
    ...(options.deployerToken ? { deployerToken: options.deployerToken } : {}),
    ...(plannerModel(options) ?? {}),
  };
}

/** `--model-url` with `--model` (and the key in $A2A_MODEL_API_KEY): the planner's model. */
function plannerModel(options: ServeOptions): Pick<DemoAgentConfig, 'plannerModel'> | undefined {
  if (options.modelUrl === undefined && options.model === undefined) return undefined;
  if (!options.modelUrl || !options.model)
    throw new Error('unsupported use of --model-url or --model alone: they go together');
  const apiKey = process.env.A2A_MODEL_API_KEY;
  return { plannerModel: { url: options.modelUrl, model: options.model, ...(apiKey ? { apiKey } : {}) } };
}

/** Every agent `a2a serve --agent` can run. */
export function agentNames(): string[] {
  return [...Object.keys(builtInAgents), 'test-runner', 'deployer', 'planner'];
}

/**
 * Hosts `executor` with `card` on JSON-RPC and REST (and gRPC when asked), with the agent's own
 * `authenticate` (the deployer's bearer tokens) or the security flags of `a2a serve`.
 */
export async function hostAgent(
  executor: AgentExecutor,
  card: AgentCardConfig,
  options: Partial<ServeOptions> & Pick<ServeOptions, 'port' | 'host'>,
  authenticate?: Authenticate,
  agent?: Pick<DemoAgent, 'server' | 'listening'>,
): Promise<RunningAgent> {
  const store = options.store ?? process.env.A2A_STORE ?? DEFAULT_STORE;
  if (!isStoreSpec(store)) {
    throw new Error(
      `unsupported store "${store}" (supported: memory, sqlite:<path>, postgres://user@host:port/db)`,
    );
  }
  const format = options.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json');
  const logger =
    options.logLevel === undefined || options.logLevel === 'silent'
      ? false
      : createLogger({ level: options.logLevel, format: format === 'pretty' ? 'pretty' : 'json' });
  const security = serveSecurityOptions(options as ServeSecurityFlags);
  const server = createA2AServer({
    agent: executor,
    card,
    store,
    logger,
    ...(options.grpcPort !== undefined ? { grpc: { port: options.grpcPort, host: options.host } } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...pushOptions(options),
    ...(authenticate && !('security' in security) ? { authenticate } : {}),
    ...security,
    ...agent?.server,
  });
  let listening;
  try {
    listening = await server.listen(options.port, options.host);
  } catch (error) {
    await server.close();
    throw error;
  }
  const url = listening.url.replace(/\/+$/, '');
  agent?.listening?.(options.publicUrl ?? url);
  return {
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    port: listening.port,
    ...(listening.grpcPort !== undefined ? { grpcPort: listening.grpcPort } : {}),
    close: () => server.close(),
  };
}

/** Push is on unless `push: false`; the flags widen the webhook address guard. */
function pushOptions(options: Partial<ServeOptions>): Pick<A2AServerOptions, 'pushNotifications' | 'push'> {
  if (options.push === false) return {};
  return {
    pushNotifications: true,
    push: {
      ...(options.pushAllowHost?.length ? { allowHosts: options.pushAllowHost } : {}),
      ...(options.pushAllowHttp ? { allowHttp: true } : {}),
    },
  };
}

/** Runs until SIGINT/SIGTERM; a second signal exits at once. */
export async function runServe(options: ServeOptions): Promise<void> {
  const running = await startBuiltInAgent(options);
  const grpc = running.grpcPort !== undefined ? `, grpc: ${options.host}:${running.grpcPort}` : '';
  process.stdout.write(
    `a2a-kit: ${options.exec ? 'exec' : options.mcp !== undefined || options.mcpUrl !== undefined ? 'mcp' : options.agent} agent at ${running.url} (card: ${running.cardUrl}${grpc})\n`,
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
  const serve = program
    .command('serve')
    .description(
      'run a built-in agent (echo, bench) over JSON-RPC and REST, and gRPC with --grpc-port, until interrupted',
    )
    .option('-a, --agent <name>', `agent to run (${agentNames().join(', ')})`, 'echo')
    .option('-p, --port <port>', 'HTTP port (0 picks a free one)', parsePort, DEFAULT_PORT)
    .option('-H, --host <host>', 'interface to listen on', DEFAULT_HOST)
    .option(
      '--store <store>',
      'where tasks live: sqlite:<path>, memory or postgres://... (default: $A2A_STORE, else sqlite:./a2a-data/a2a.sqlite)',
      process.env.A2A_STORE ?? DEFAULT_STORE,
    )
    .option(
      '--grpc-port <port>',
      'also serve gRPC on this port (0 picks a free one), listed on the card as host:port',
      parsePort,
    )
    .option('--public-url <url>', 'base URL to advertise on the card (behind a proxy)')
    .option('--exec <cmd>', 'serve a shell command as an agent: message on stdin, stdout streamed back')
    .option('--mcp <cmd>', "serve an MCP server's tools as an agent: the command that starts it (stdio)")
    .option('--mcp-url <url>', 'serve the tools of the MCP server at this Streamable HTTP URL as an agent')
    .option('--data-dir <dir>', 'demo agents: where releases and the sample repository live')
    .option('--test-command <cmd>', 'test-runner: the command that runs the tests', 'node --test')
    .option('--time-limit <ms>', 'test-runner: time limit of one test run, ms', parsePositive)
    .option('--test-runner-url <url>', 'planner: base URL of the test-runner')
    .option('--deployer-url <url>', 'planner: base URL of the deployer')
    .option('--deployer-token <token>', 'planner: bearer token for the deployer')
    .option(
      '--model-url <url>',
      'planner: decide with the model at this OpenAI-compatible base URL (key in $A2A_MODEL_API_KEY)',
    )
    .option('--model <name>', 'planner: the model name at --model-url')
    .option('--no-push', 'turn push notifications off (on by default)')
    .option(
      '--push-allow-host <host>',
      'let webhooks go to this host although it is loopback or private (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--push-allow-http', 'accept http: webhook URLs (default: https only)')
    .option('--log-level <level>', `log level (${LOG_LEVELS.join(', ')})`, parseLogLevel, 'info')
    .option(
      '--log-format <format>',
      'pretty or json (default: pretty on a terminal, json otherwise)',
      parseLogFormat,
    );
  serve.addHelpText(
    'after',
    `
Examples:
  $ a2a serve --agent echo
  $ a2a serve --agent bench --port 0 --store memory
  $ a2a serve --agent bench --push-allow-host 127.0.0.1 --push-allow-http   (webhooks to a local a2a push listen)
  $ a2a serve --exec "tr a-z A-Z"
  $ a2a serve --mcp "npx -y @modelcontextprotocol/server-everything"
  $ a2a serve --mcp-url http://127.0.0.1:8808/mcp
`,
  );
  addServeSecurityFlags(serve).action(async (opts: ServeOptions) => {
    await runServe(opts);
  });
}
