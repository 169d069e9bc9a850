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
