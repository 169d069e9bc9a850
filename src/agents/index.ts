/** The agents shipped with a2a-kit, runnable with `a2a serve --agent <name>`. */
import type { AgentExecutor } from '../core/executor.js';
import { benchCard, benchExecutor } from './bench.js';
import type { BuiltInCard } from './card.js';
import { echoCard, echoExecutor } from './echo.js';

export type { BuiltInCard } from './card.js';
export { benchCard, benchExecutor, BENCH_ARTIFACT_ID } from './bench.js';
export { echoCard, echoExecutor } from './echo.js';

/** A built-in agent: its executor and the author-written part of its card. */
export interface BuiltInAgent {
  executor: AgentExecutor;
  card: BuiltInCard;
}

/** Every built-in agent by name. */
export const builtInAgents: Record<string, BuiltInAgent> = {
  echo: { executor: echoExecutor, card: echoCard },
  bench: { executor: benchExecutor, card: benchCard },
};

export {
  createTestRunnerExecutor,
  testRunnerCard,
  parseRunRequest,
  DEFAULT_TEST_COMMAND,
  DEFAULT_TIME_LIMIT_MS,
  type TestRunnerOptions,
  type TestSummary,
} from './test-runner/test-runner.js';
export {
  createDeployerExecutor,
  deployerCard,
  parseDeployRequest,
  type DeployerOptions,
  type DeployRequest,
  type DeploymentRecord,
} from './deployer/deployer.js';
export {
  DEMO_TOKEN,
  DEMO_PRODUCTION_TOKEN,
  DEMO_TOKENS,
  demoTokenAuthenticate,
  deployScope,
  hasScope,
} from './deployer/tokens.js';
export {
  createPlannerExecutor,
  plannerCard,
  parseShipRequest,
  pickSkill,
  PROGRESS_KEY,
  type PlannerOptions,
  type ProgressNote,
  type ShipRequest,
} from './planner/planner.js';
export { recordedSubtasks, type SubtaskRef } from './planner/subtasks.js';
export {
  createDemoAgent,
  isDemoAgent,
  DEMO_PORTS,
  type DemoAgent,
  type DemoAgentConfig,
  type DemoAgentName,
} from './demo.js';
