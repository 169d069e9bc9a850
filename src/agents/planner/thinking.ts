/**
 * The planner on a language model (`a2a serve --agent planner --model-url URL --model NAME`):
 * an aiSdkExecutor over an OpenAI-compatible endpoint whose tools are its peers, each an
 * a2aTool described by the peer's own card, so the model decides whom to call and with what by
 * reading the cards. A peer's question (the deployer's confirmation) reaches the caller through
 * `askUser` as the planner's own INPUT_REQUIRED. The bridges and the provider are optional
 * peers: they load on the first message, and the peers' cards are read then (again after a
 * failure), so the planner starts before its peers do.
 */
import type { A2AClientOptions } from '../../client/options.js';
import type { AgentExecutor } from '../../core/executor.js';

/** The model the planner thinks with. */
export interface PlannerModel {
  /** Base URL of an OpenAI-compatible API (`http://127.0.0.1:11434/v1`). */
  url: string;
  /** The model's name at that endpoint. */
  model: string;
  /** Sent as a bearer token when set. */
  apiKey?: string;
}

/** Options of {@link createThinkingPlannerExecutor}. */
export interface ThinkingPlannerOptions {
  model: PlannerModel;
  testRunnerUrl: string;
  deployerUrl: string;
  deployerToken?: string;
  client?: A2AClientOptions;
  /** Model steps per message (tool rounds included). @default 8 */
  maxSteps?: number;
}

/** What the model is told; the rest it reads from the tools (the peers' cards). */
export const PLANNER_SYSTEM_PROMPT = `You are the planner of a release pipeline. The user asks you to ship a commit of a repository
to an environment (staging unless they say otherwise). Your tools are other agents; read their
descriptions to decide which to call. Run the tests of the commit first; deploy only when they pass,
and never when they fail. Pass the repository, commit and environment as the data of each call.
When an agent asks a question, ask the user with askUser and send their answer back to that
agent with the taskId it returned. End with a short report saying what ran and what came of it.`;

/** Tool names from agent names: what AI SDK providers accept. */
function toolName(name: string, used: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 48) || 'agent';
  let n = base;
  for (let i = 2; used.has(n); i++) n = `${base}_${i}`;
  used.add(n);
  return n;
}

/** The planner's executor on `options.model`; see the module comment. */
export function createThinkingPlannerExecutor(options: ThinkingPlannerOptions): AgentExecutor {
  let inner: Promise<AgentExecutor> | undefined;
  const build = async (): Promise<AgentExecutor> => {
    const [{ a2aTool, aiSdkExecutor, askUserTool }, { createOpenAICompatible }] = await Promise.all([
      import('../../bridges/ai-sdk/index.js'),
      import('@ai-sdk/openai-compatible'),
    ]);
    const provider = createOpenAICompatible({
      name: 'planner-model',
      baseURL: options.model.url,
      ...(options.model.apiKey ? { apiKey: options.model.apiKey } : {}),
    });
    const peers = await Promise.all([
      a2aTool(options.testRunnerUrl, { client: { ...options.client } }),
      a2aTool(options.deployerUrl, {
        client: {
          ...options.client,
          ...(options.deployerToken ? { auth: { bearer: options.deployerToken } } : {}),
        },
      }),
    ]);
    const used = new Set<string>(['askUser']);
    const tools: Record<string, (typeof peers)[number] | ReturnType<typeof askUserTool>> = {
      askUser: askUserTool(
        'Ask the user a question (a confirmation an agent asked for) and wait for the answer.',
      ),
    };
    for (const [i, peer] of peers.entries()) {
      const name = /"([^"]+)"/.exec(String(peer.description))?.[1] ?? (i === 0 ? 'test-runner' : 'deployer');
      tools[toolName(name, used)] = peer;
    }
    return aiSdkExecutor({
      model: provider.chatModel(options.model.model),
      system: PLANNER_SYSTEM_PROMPT,
      tools,
      maxSteps: options.maxSteps ?? 8,
      artifactId: 'report',
    });
  };
  return {
    async execute(ctx, task) {
      inner ??= build().catch((error: unknown) => {
        inner = undefined; // the next message tries again (a peer that was not up yet)
        throw new Error(
          `the planner could not reach its peers or its model: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      return (await inner).execute(ctx, task);
    },
  };
}
