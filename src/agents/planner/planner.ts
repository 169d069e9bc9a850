/**
 * `planner`: ships a commit (skill `ship`). It is an A2A server and an A2A client: it finds the
 * test-runner and the deployer by their cards, picks their skills from the cards, runs the tests,
 * and when they pass asks the deployer, forwarding the deployer's question to its own caller as
 * its own INPUT_REQUIRED. Every sub-task id is recorded on its own task (see subtasks.ts)
 * before it waits on it; canceling the planner's task cancels its sub-tasks. The test run is
 * followed by push notifications to the planner's own webhook (webhook.ts; polling when the
 * test-runner offers no push), the deployment by streaming. The executor is resumable: after a
 * restart the core hands an unfinished ship task back, and it goes on from what it recorded.
 * It completes with `report.json`, which cites each sub-task and the artifacts the decision
 * rested on.
 */
import { A2AClient } from '../../client/client.js';
import { textOf } from '../../client/artifacts.js';
import { TaskCanceledReason } from '../../core/handler/abort-reasons.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../core/executor.js';
import { messageData } from '../../core/executor.js';
import type { Artifact, Message, Task } from '../../model/schema.js';
import { KIT_VERSION, type BuiltInCard } from '../card.js';
import { PROGRESS_KEY, ShipRun, stateName, type PlannerOptions } from './ship-run.js';
import { recordedSubtasks, type SubtaskRef } from './subtasks.js';

export { PROGRESS_KEY, pickSkill, type PlannerOptions, type ProgressNote } from './ship-run.js';

/** What the planner is asked to ship. */
export interface ShipRequest {
  repo: string;
  commit: string;
  env: string;
  service: string;
}

/** Reads `{repo, commit, env?, service?}` from a data part, or `ship <repo> <commit> [to <env>]`. */
export function parseShipRequest(message: Message): ShipRequest | string {
  const data = messageData(message) as Partial<Record<keyof ShipRequest, unknown>> | undefined;
  let raw: Partial<Record<keyof ShipRequest, unknown>> = {};
  if (data && typeof data === 'object') raw = data;
  else {
    const text = message.parts.map((p) => p.text ?? '').join(' ');
    const m = /^(?:ship\s+)?(\S+)\s+(\S+)(?:\s+to\s+(\S+))?\s*$/i.exec(text.trim());
    if (m) raw = { repo: m[1], commit: m[2], env: m[3] };
  }
  if (typeof raw.repo !== 'string' || typeof raw.commit !== 'string' || !raw.repo || !raw.commit) {
    return 'send {"repo": "<path>", "commit": "<rev>", "env": "staging"} as a data part, or "ship <repo> <commit> [to <env>]"';
  }
  const env = typeof raw.env === 'string' && raw.env ? raw.env : 'staging';
  const service = typeof raw.service === 'string' && raw.service ? raw.service : 'payments-api';
  return { repo: raw.repo, commit: raw.commit, env, service };
}

/** An artifact as the report cites it: id, name and (for data) the content. */
function cite(artifact: Artifact): Record<string, unknown> {
  const data = artifact.parts.find((p) => p.data !== undefined)?.data;
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name ? { name: artifact.name } : {}),
    ...(data !== undefined ? { data } : {}),
  };
}

const dataOf = (task: Task, name: string): unknown =>
  task.artifacts?.find((a) => a.name === name)?.parts.find((p) => p.data !== undefined)?.data;

/** Builds the planner's executor (resumable: a restart hands its unfinished tasks back). */
export function createPlannerExecutor(options: PlannerOptions): AgentExecutor {
  const cancelSubtasks = async (refs: SubtaskRef[]): Promise<string[]> => {
    const canceled: string[] = [];
    await Promise.all(
      refs.map(async (ref) => {
        const client = await A2AClient.connect(ref.url, {
          ...options.client,
          ...(ref.step === 'deploy' && options.deployerToken
            ? { auth: { bearer: options.deployerToken } }
            : {}),
        }).catch(() => undefined);
        if (!client) return;
        try {
          await client.cancelTask(ref.taskId, { timeoutMs: options.cancelTimeoutMs ?? 10_000 });
          canceled.push(ref.taskId);
        } catch {
          // Already ended, or unreachable: nothing more to stop.
        } finally {
          await client.close();
        }
      }),
    );
    return canceled;
  };

  return {
    resumable: true,
    async execute(ctx, task) {
      const first = ctx.task?.history?.find((m) => m.role === 'ROLE_USER') ?? ctx.message;
      const request = parseShipRequest(first);
      if (typeof request === 'string') return task.reject(request);
      const run = new ShipRun(options, ctx, task);
      const started: SubtaskRef[] = [];
      try {
        await ship(run, ctx, task, request, started);
      } catch (error) {
        if (ctx.signal.reason instanceof TaskCanceledReason) {
          // Our task was canceled (the cancel hook stops what it recorded); stop what it may not have seen.
          await cancelSubtasks(started);
          return;
        }
        // Stopped by a closing server: the sub-tasks go on, and the next start resumes following them.
        if (ctx.signal.aborted) return;
        throw error;
      } finally {
        await run.close();
      }
    },
    async cancel(ctx, task) {
      const refs = Object.values(recordedSubtasks(ctx.task));
      const canceled = await cancelSubtasks(refs);
      await task.cancel(
        canceled.length > 0 ? `canceled, and its sub-tasks ${canceled.join(', ')}` : 'canceled',
      );
    },
  };
}

/** The plan: tests, then (when they pass) the deployment, resumed turn by turn. */
async function ship(
  run: ShipRun,
  ctx: RequestContext,
  task: TaskEventSink,
  request: ShipRequest,
  started: SubtaskRef[],
): Promise<void> {
  const recorded = recordedSubtasks(ctx.task);
  let deployRef = recorded.deploy;
  let testRef = recorded.tests;
  const firstMessageId = ctx.task?.history?.find((m) => m.role === 'ROLE_USER')?.messageId;
  // A message after the first one answers the question the planner forwarded.
  const answering = ctx.task !== undefined && ctx.message.messageId !== firstMessageId;
  if (ctx.resumed) {
    const following = [testRef, deployRef].filter((r) => r !== undefined).map((r) => r.taskId);
    await run.progress({
      step: 'plan',
      agent: 'planner',
      text: `resumed after a restart${following.length ? `: following ${following.join(', ')} again` : ''}`,
    });
  }

  if (!testRef) {
    await run.progress({
      step: 'plan',
      agent: 'planner',
      text: `shipping ${request.service}@${request.commit} to ${request.env}`,
    });
    testRef = await run.start('tests', { repo: request.repo, commit: request.commit }, started);
  }
  // A later turn re-reads the finished test run: the report cites it either way.
  const tests = await run.followTests(testRef);
  if (tests.status.state !== 'TASK_STATE_COMPLETED') {
    const why = tests.status.message ? textOf(tests.status.message) : stateName(tests.status.state);
    await report(task, request, 'not deployed', [[testRef, tests]]);
    return task.fail(`the test run ${testRef.taskId} ended ${stateName(tests.status.state)}: ${why}`);
  }
  const summary = dataOf(tests, 'summary.json') as
    { failed?: number; passed?: number; commit?: string } | undefined;
  if (!summary || (summary.failed ?? 0) > 0) {
    await report(task, request, 'not deployed', [[testRef, tests]]);
    return task.fail(
      summary
        ? `${summary.failed} tests failed at ${request.commit} (test run ${testRef.taskId}): not deployed`
        : `the test run ${testRef.taskId} has no summary.json: not deployed`,
    );
  }

  const client = await run.client('deploy');
  if (!deployRef) {
    const commit = summary.commit ?? request.commit; // deploy exactly what was tested
    deployRef = await run.start(
      'deploy',
      { service: request.service, repo: request.repo, commit, env: request.env },
      started,
    );
  } else if (answering) {
    // This turn answers the question we forwarded: pass the answer on to the deployer's task.
    const current = await client.getTask(deployRef.taskId, { signal: ctx.signal });
    if (
      current.status.state === 'TASK_STATE_INPUT_REQUIRED' ||
      current.status.state === 'TASK_STATE_AUTH_REQUIRED'
    ) {
      await client.send({
        taskId: deployRef.taskId,
        ...(deployRef.contextId ? { contextId: deployRef.contextId } : {}),
        parts: ctx.message.parts.map((p) => ({ ...p })),
        // One id per answer: passed on again after a restart, it is not a second answer.
        messageId: `${ctx.taskId}:answer:${ctx.message.messageId}`,
        returnImmediately: true,
        signal: ctx.signal,
      });
    }
  }
  const deployment = await run.follow(deployRef);
  const state = deployment.status.state;
  const question = deployment.status.message ? textOf(deployment.status.message) : '';
  if (state === 'TASK_STATE_INPUT_REQUIRED') {
    return task.requireInput({
      parts: [{ text: question || `the ${deployRef.agent} needs an answer` }],
      metadata: {
        [PROGRESS_KEY]: { step: 'deploy', agent: deployRef.agent, taskId: deployRef.taskId, state },
      },
    });
  }
  if (state === 'TASK_STATE_AUTH_REQUIRED') {
    return task.requireAuth({
      parts: [{ text: `${deployRef.agent}: ${question || 'needs other credentials'}` }],
      metadata: {
        [PROGRESS_KEY]: { step: 'deploy', agent: deployRef.agent, taskId: deployRef.taskId, state },
      },
    });
  }
  const pairs: [SubtaskRef, Task][] = [
    [testRef, tests],
    [deployRef, deployment],
  ];
  if (state !== 'TASK_STATE_COMPLETED') {
    await report(task, request, 'not deployed', pairs);
    const why = question || stateName(state);
    return task.fail(`the deployment ${deployRef.taskId} ended ${stateName(state)}: ${why}`);
  }
  await report(task, request, 'deployed', pairs);
  await task.complete(
    undefined,
    `shipped ${request.service}@${String(summary.commit ?? request.commit).slice(0, 7)} to ${request.env}`,
  );
}

/** Writes `report.json`: the outcome and, for each sub-task, its id, final state and the artifacts relied on. */
async function report(
  task: TaskEventSink,
  request: ShipRequest,
  outcome: 'deployed' | 'not deployed',
  subtasks: [SubtaskRef, Task][],
): Promise<void> {
  const cited = subtasks.map(([ref, t]) => ({
    step: ref.step,
    agent: ref.agent,
    url: ref.url,
    skill: ref.skill,
    taskId: ref.taskId,
    state: t.status.state,
    artifacts: (t.artifacts ?? []).map(cite),
  }));
  const lines = [
    `${request.service}@${request.commit} → ${request.env}: ${outcome}`,
    ...cited.map(
      (c) =>
        `${c.step}: ${c.agent} task ${c.taskId} ${stateName(c.state)}; artifacts ${c.artifacts.map((a) => a.name ?? a.artifactId).join(', ') || 'none'}`,
    ),
  ];
  await task.artifact({
    artifactId: 'report',
    name: 'report.json',
    parts: [{ text: lines.join('\n') }, { data: { ...request, outcome, subtasks: cited } }],
  });
}

/** The planner's card. */
export const plannerCard: BuiltInCard = {
  name: 'planner',
  description:
    'Ships a commit: runs its tests on the test-runner and, when they pass, deploys it with the deployer.',
  version: KIT_VERSION,
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['application/json', 'text/plain'],
  skills: [
    {
      id: 'ship',
      name: 'Ship',
      description:
        'Runs the tests at a commit and, if they pass, deploys it (asking you to confirm); completes with report.json citing each sub-task and its artifacts.',
      tags: ['ci', 'deploy', 'orchestration'],
      examples: [
        '{"repo": "/path/to/payments-api", "commit": "passing", "env": "staging"}',
        'ship /path/to/payments-api passing',
      ],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'text/plain'],
    },
  ],
};
