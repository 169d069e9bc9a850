/**
 * The demo agents (test-runner, deployer, planner) need configuration, so they are made by
 * factories rather than listed in `builtInAgents`; `a2a serve --agent <name>` knows both.
 */
import type { AgentExecutor } from '../core/executor.js';
import type { Principal } from '../core/context.js';
import type { AuthRequest } from '../server/auth/request.js';
import type { A2AServerOptions } from '../server/options.js';
import type { BuiltInCard } from './card.js';
import { createDeployerExecutor, deployerCard } from './deployer/deployer.js';
import { DEMO_TOKEN, demoTokenAuthenticate } from './deployer/tokens.js';
import { createPlannerExecutor, plannerCard } from './planner/planner.js';
import { PlannerWebhook } from './planner/webhook.js';
import { createThinkingPlannerExecutor, type PlannerModel } from './planner/thinking.js';
import { createTestRunnerExecutor, testRunnerCard } from './test-runner/test-runner.js';

/** Configuration of the demo agents (each uses what it needs). */
export interface DemoAgentConfig {
  /** Where the deployer writes releases. */
  dataDir: string;
  /** The test-runner's test command. @default 'node --test' */
  testCommand?: string;
  /** The test-runner's time limit, ms. */
  timeLimitMs?: number;
  /** The planner's peers. */
  testRunnerUrl?: string;
  deployerUrl?: string;
  /** The planner's token for the deployer. @default DEMO_TOKEN */
  deployerToken?: string;
  /** The planner thinks with this model (an OpenAI-compatible endpoint); without it, its fixed plan. */
  plannerModel?: PlannerModel;
}

/** A demo agent ready to host: executor, card, and the authentication its server must enforce. */
export interface DemoAgent {
  executor: AgentExecutor;
  card: BuiltInCard;
  /** Turns a request into the caller; for the `authenticate` option of createA2AServer. */
  authenticate?: (request: AuthRequest) => Principal;
  /** More createA2AServer options the agent needs (push delivery, its webhook route). */
  server?: Pick<A2AServerOptions, 'pushNotifications' | 'push' | 'routes'>;
  /** Tells the agent the base URL its server listens at (the planner's webhook address). */
  listening?: (url: string) => void;
}

/**
 * Push delivery of the demo's test-runner: every demo agent runs on loopback, so webhooks on
 * loopback over http are allowed there (and nowhere else: public https addresses only).
 */
export const DEMO_PUSH_OPTIONS = {
  allowHttp: true,
  allowHosts: ['127.0.0.1', 'localhost', '[::1]', '::1'],
} as const;

/** Default ports of the demo agents on loopback. */
export const DEMO_PORTS = { 'test-runner': 41241, deployer: 41243, planner: 41245 } as const;

/** The names of the demo agents. */
export type DemoAgentName = keyof typeof DEMO_PORTS;

/** True when `name` is a demo agent. */
export function isDemoAgent(name: string): name is DemoAgentName {
  return Object.hasOwn(DEMO_PORTS, name);
}

/** Builds demo agent `name`. */
export function createDemoAgent(name: DemoAgentName, config: DemoAgentConfig): DemoAgent {
  switch (name) {
    case 'test-runner':
      return {
        executor: createTestRunnerExecutor({
          ...(config.testCommand ? { command: config.testCommand } : {}),
          ...(config.timeLimitMs !== undefined ? { timeLimitMs: config.timeLimitMs } : {}),
        }),
        card: testRunnerCard,
        server: {
          pushNotifications: true,
          push: { ...DEMO_PUSH_OPTIONS, allowHosts: [...DEMO_PUSH_OPTIONS.allowHosts] },
        },
      };
    case 'deployer':
      return {
        executor: createDeployerExecutor({ dataDir: config.dataDir }),
        card: deployerCard,
        authenticate: demoTokenAuthenticate,
      };
    case 'planner': {
      if (config.plannerModel) {
        return {
          executor: createThinkingPlannerExecutor({
            model: config.plannerModel,
            testRunnerUrl: config.testRunnerUrl ?? `http://127.0.0.1:${DEMO_PORTS['test-runner']}`,
            deployerUrl: config.deployerUrl ?? `http://127.0.0.1:${DEMO_PORTS.deployer}`,
            deployerToken: config.deployerToken ?? DEMO_TOKEN,
          }),
          card: plannerCard,
        };
      }
      // Its own webhook, a route on its own server, where the test-runner pushes updates.
      const webhook = new PlannerWebhook();
      return {
        executor: createPlannerExecutor({
          testRunnerUrl: config.testRunnerUrl ?? `http://127.0.0.1:${DEMO_PORTS['test-runner']}`,
          deployerUrl: config.deployerUrl ?? `http://127.0.0.1:${DEMO_PORTS.deployer}`,
          deployerToken: config.deployerToken ?? DEMO_TOKEN,
          webhook,
        }),
        card: plannerCard,
        server: { routes: webhook.routes },
        listening: (url) => webhook.listening(url),
      };
    }
  }
}
