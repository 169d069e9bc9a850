/**
 * `a2a demo` (what `npm start` runs): creates the sample payments-api repository once, starts
 * the test-runner, the deployer and the planner on loopback, ships the passing commit through
 * the planner with live progress, asks (or, without a terminal, answers) the deployer's
 * question, then leaves the agents running until Ctrl-C.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import pc from 'picocolors';
import { DEMO_PORTS, createDemoAgent, type DemoAgentConfig, type DemoAgentName } from '../../agents/demo.js';
import { DEMO_TOKEN } from '../../agents/deployer/tokens.js';
import { A2AClient, statusOf } from '../../client/client.js';
import { textOf } from '../../client/artifacts.js';
import type { Task } from '../../model/schema.js';
import { describeError, exitCodeOfError } from '../common.js';
import { EXIT, exitCodeOfState } from '../exit-codes.js';
import { stateWord } from '../render.js';
import { DEFAULT_HOST, hostAgent, type RunningAgent } from '../serve.js';
import { defaultDataDir } from './data-dir.js';
import { ShipProgress } from './progress.js';
import { ensureSampleRepo } from './sample-repo.js';

/** Options of `a2a demo`. */
export interface DemoOptions {
  dataDir?: string;
  commit: string;
  env: string;
  ports: string;
  testCommand?: string;
  timeLimit?: number;
  /** Stop the agents once the flow ended instead of waiting for Ctrl-C. */
  exit?: boolean;
  /** The planner thinks with the model at this OpenAI-compatible base URL (with `model`). */
  modelUrl?: string;
  model?: string;
}

const out = (text: string) => void process.stdout.write(text);

function parsePorts(value: string): [number, number, number] {
  const ports = value.split(',').map((p) => Number(p.trim()));
  if (ports.length !== 3 || ports.some((p) => !Number.isInteger(p) || p < 0 || p > 65535)) {
    throw new Error(`--ports needs three port numbers (test-runner,deployer,planner), got ${value}`);
  }
  return ports as [number, number, number];
}

/** Runs the demo; resolves when it is over (after Ctrl-C, or at once with --exit). */
export async function runDemo(opts: DemoOptions): Promise<number> {
  const dataDir = opts.dataDir ?? defaultDataDir();
  await mkdir(dataDir, { recursive: true });
  const repo = await ensureSampleRepo(join(dataDir, 'payments-api'));
  out(
    `${pc.bold('a2a demo')}: data in ${dataDir}\n  sample repository ${repo.path} (passing ${repo.passing.slice(0, 7)}, failing ${repo.failing.slice(0, 7)})\n`,
  );
  const [trPort, depPort, planPort] = parsePorts(opts.ports);
  const running: RunningAgent[] = [];
  const stopAll = async () => {
    await Promise.allSettled(running.splice(0).map((r) => r.close()));
  };
  let code: number = EXIT.ok;
  try {
    const start = async (name: DemoAgentName, port: number, extra: Partial<DemoAgentConfig> = {}) => {
      const agent = createDemoAgent(name, {
        dataDir: join(dataDir, name),
        ...(opts.testCommand ? { testCommand: opts.testCommand } : {}),
        ...(opts.timeLimit !== undefined ? { timeLimitMs: opts.timeLimit } : {}),
        ...extra,
      });
      const r = await hostAgent(
        agent.executor,
        agent.card,
        { port, host: DEFAULT_HOST, store: `sqlite:${join(dataDir, name, 'a2a.sqlite')}` },
        agent.authenticate,
        agent,
      );
      running.push(r);
      out(`  ${name.padEnd(11)} ${r.url}\n`);
      return r;
    };
    const runner = await start('test-runner', trPort);
    const deployer = await start('deployer', depPort);
    const planner = await start('planner', planPort, {
      testRunnerUrl: runner.url,
      deployerUrl: deployer.url,
      deployerToken: DEMO_TOKEN,
      ...plannerModel(opts),
    });
    out('\n');
    const task = await ship(planner.url, { repo: repo.path, commit: opts.commit, env: opts.env });
    code = exitCodeOfState(task.status.state);
    printOutcome(task, join(dataDir, 'deployer'));
    out(`
${pc.bold('Try next')} (the agents keep running):
  npx a2a card ${planner.url}
  npx a2a send ${planner.url} --data '{"repo": "${repo.path}", "commit": "failing"}'   ${pc.dim('# the failing commit stops before deploy')}
  npx a2a send ${runner.url} '${repo.path} passing' --stream
  npx a2a chat ${deployer.url} --token ${DEMO_TOKEN}                                 ${pc.dim('# say: deploy ' + repo.path + ' passing')}
  npx a2a list ${planner.url}
`);
    if (opts.exit) return code;
    out(`${pc.dim('Ctrl-C stops the agents.')}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    out('stopping the agents...\n');
    return code;
  } finally {
    await stopAll();
  }
}

/** `--model-url` with `--model` (the key in $A2A_MODEL_API_KEY): the planner's model. */
function plannerModel(opts: DemoOptions): Pick<DemoAgentConfig, 'plannerModel'> {
  if (opts.modelUrl === undefined && opts.model === undefined) return {};
  if (!opts.modelUrl || !opts.model)
    throw new Error('unsupported use of --model-url or --model alone: they go together');
  const apiKey = process.env.A2A_MODEL_API_KEY;
  return { plannerModel: { url: opts.modelUrl, model: opts.model, ...(apiKey ? { apiKey } : {}) } };
}

/** Runs the planner's `ship` flow with live progress, answering its question; returns the final task. */
async function ship(
  plannerUrl: string,
  request: { repo: string; commit: string; env: string },
): Promise<Task> {
  const client = await A2AClient.connect(plannerUrl);
  const tty = process.stdout.isTTY === true;
  const progress = new ShipProgress(out, tty);
  try {
    let input: Parameters<A2AClient['streamResilient']>[0] = { data: request };
    for (let turn = 0; turn < 10; turn++) {
      let taskId: string | undefined;
      let state: string | undefined;
      let question = '';
      for await (const event of client.streamResilient(input)) {
        progress.event(event);
        if (event.kind === 'task') taskId = event.task.id;
        const status = statusOf(event);
        if (status) {
          state = status.state;
          question = status.message ? textOf(status.message) : '';
        }
      }
      if (!taskId) throw new Error('the planner answered without a task');
      if (state !== 'TASK_STATE_INPUT_REQUIRED') return client.getTask(taskId);
      const answer = await askOrAnswer(question);
      progress.detach();
      input = { taskId, text: answer };
    }
    throw new Error('the planner kept asking questions');
  } finally {
    await client.close();
  }
}

/** Asks `question` on a terminal; otherwise answers yes and says so. */
async function askOrAnswer(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    out(`${pc.yellow('?')} ${question} ${pc.dim('(stdin is not a terminal: answering yes)')}\n`);
    return 'yes';
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${pc.yellow('?')} ${question} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer) ? 'yes' : 'no';
  } finally {
    rl.close();
  }
}

function printOutcome(task: Task, deployerDir: string): void {
  // report.json of the fixed plan; the model's own words (artifact `report`) with --model-url.
  const report = task.artifacts?.find((a) => a.name === 'report.json' || a.artifactId === 'report');
  out(
    `\n${pc.bold('planner')} task ${task.id}: ${stateWord(task.status.state)}${task.status.message ? `: ${textOf(task.status.message)}` : ''}\n`,
  );
  if (report) out(`${textOf(report).replace(/^/gm, '  ')}\n`);
  if (task.status.state === 'TASK_STATE_COMPLETED') {
    out(`  deployed to ${join(deployerDir, 'releases', 'staging', 'current')}\n`);
  }
}

/** Adds `demo` to the `a2a` program. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'start the test-runner, deployer and planner agents and ship the sample payments-api (what npm start runs)',
    )
    .option(
      '--data-dir <dir>',
      'where the sample repository, releases and logs go (default $A2A_DEMO_DIR or ~/.a2a-kit/demo)',
    )
    .option('--commit <rev>', 'the commit to ship (passing, failing, or any revision)', 'passing')
    .option('--env <env>', 'staging or production', 'staging')
    .option(
      '--ports <list>',
      'ports of test-runner,deployer,planner (0 picks free ones)',
      `${DEMO_PORTS['test-runner']},${DEMO_PORTS.deployer},${DEMO_PORTS.planner}`,
    )
    .option('--test-command <cmd>', "the test-runner's test command", 'node --test')
    .option('--time-limit <ms>', "the test-runner's time limit per run, ms", (v) => Number(v))
    .option('--exit', 'stop the agents when the flow ends instead of waiting for Ctrl-C')
    .option(
      '--model-url <url>',
      'the planner decides with the model at this OpenAI-compatible base URL (key in $A2A_MODEL_API_KEY)',
    )
    .option('--model <name>', 'the model name at --model-url')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npm start\n  $ npx a2a demo --commit failing\n  $ npx a2a demo --data-dir /tmp/demo --ports 0,0,0 --exit\n',
    )
    .action(async (opts: DemoOptions) => {
      try {
        process.exitCode = await runDemo(opts);
      } catch (error) {
        process.stderr.write(`a2a: ${describeError(error)}\n`);
        process.exitCode =
          exitCodeOfError(error) === EXIT.failed && /EADDRINUSE/.test(String(error))
            ? EXIT.network
            : exitCodeOfError(error);
      }
    });
}
