/**
 * One run of the planner's `ship` flow against its two peers: the clients (found by their
 * cards), the progress notes on the planner's own task, starting a sub-task (recorded before
 * anyone waits on it) and following it: the test run by push or polling, the deployment by
 * streaming.
 */
import { A2AClient, type A2AClientOptions } from '../../client/client.js';
import { textOf } from '../../client/artifacts.js';
import { agentOriginsOf, pushJwksOnAgentOrigin, pushJwksUrlOf } from '../../client/push-signature.js';
import type { RequestContext, TaskEventSink } from '../../core/executor.js';
import type { AgentCard, AgentSkill, Task } from '../../model/schema.js';
import { followByPolling, followByPush, settled, type FollowNote, type FollowTiming } from './follow.js';
import { subtaskArtifactId, type Step, type SubtaskRef } from './subtasks.js';
import { PLANNER_PUSH_CONFIG_ID, type PlannerWebhook, type PushWatch } from './webhook.js';

/** Key of the progress metadata on the planner's status messages (read by `a2a demo`). */
export const PROGRESS_KEY = 'a2a-kit/progress';

/** What each progress status message carries under {@link PROGRESS_KEY}. */
export interface ProgressNote {
  step: Step | 'plan';
  agent: string;
  taskId?: string;
  state?: string;
  artifact?: string;
  text?: string;
  /** How the sub-task's update reached the planner. */
  via?: FollowNote['via'];
  /** Push notifications received for the sub-task so far. */
  notifications?: number;
}

/** Options of {@link createPlannerExecutor}. */
export interface PlannerOptions {
  /** Base URL of the agent that runs tests. */
  testRunnerUrl: string;
  /** Base URL of the agent that deploys. */
  deployerUrl: string;
  /** Bearer token for the deployer. */
  deployerToken?: string;
  /** Extra client options (timeouts, fetch) for both clients. */
  client?: A2AClientOptions;
  /** How long a cancel of a sub-task may take, ms. @default 10000 */
  cancelTimeoutMs?: number;
  /**
   * The planner's own webhook (its server must serve `webhook.routes` and call
   * `webhook.listening(url)`): the test run is followed by push when the test-runner's card
   * offers it. Without one, or without push on that card, the planner polls GetTask.
   */
  webhook?: PlannerWebhook;
  /** Timing of push and polling follows. */
  follow?: FollowTiming;
}

/** The skill on `card` that does `step`: by id first, then by tag. */
export function pickSkill(card: AgentCard, step: Step): AgentSkill | undefined {
  const id = step === 'tests' ? 'run-tests' : 'deploy';
  const tags = step === 'tests' ? ['tests', 'ci'] : ['deploy'];
  return (
    card.skills.find((s) => s.id === id) ?? card.skills.find((s) => s.tags.some((t) => tags.includes(t)))
  );
}

export const stateName = (state: string) =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** One run of the planner against its two peers. */
export class ShipRun {
  private readonly clients = new Map<Step, A2AClient>();
  /** Watches of test runs this turn started with the webhook, until they are followed. */
  readonly #watches = new Map<string, PushWatch>();
  /** Why the test-runner cannot push to us, once it refused the webhook. */
  #pushRefused: string | undefined;
  constructor(
    private readonly options: PlannerOptions,
    private readonly ctx: RequestContext,
    private readonly task: TaskEventSink,
  ) {}

  private url(step: Step): string {
    return step === 'tests' ? this.options.testRunnerUrl : this.options.deployerUrl;
  }

  /** The client for `step`'s agent (discovered by its card once per run). */
  async client(step: Step): Promise<A2AClient> {
    let client = this.clients.get(step);
    if (client) return client;
    const auth =
      step === 'deploy' && this.options.deployerToken ? { auth: { bearer: this.options.deployerToken } } : {};
    try {
      client = await A2AClient.connect(this.url(step), { ...this.options.client, ...auth });
    } catch (error) {
      throw new Error(
        `cannot reach the ${step === 'tests' ? 'test-runner' : 'deployer'} at ${this.url(step)}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.clients.set(step, client);
    return client;
  }

  async close(): Promise<void> {
    for (const watch of this.#watches.values()) watch.close();
    this.#watches.clear();
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }

  /** A progress status message: text for people, {@link PROGRESS_KEY} metadata for programs. */
  progress(note: ProgressNote): Promise<void> {
    const text = `[${note.agent}] ${note.text ?? (note.state ? stateName(note.state) : '')}`.trimEnd();
    return this.task.working({ parts: [{ text }], metadata: { [PROGRESS_KEY]: { ...note } } });
  }

  /** Where the test-runner can push to: the webhook, when both sides can; else why not. */
  #pushTarget(card: AgentCard): { webhook: PlannerWebhook; url: string; jwks: string | undefined } | string {
    const webhook = this.options.webhook;
    if (!card.capabilities.pushNotifications) return `the card of ${card.name} offers no push notifications`;
    if (!webhook?.url) return 'the planner has no webhook';
    if (this.#pushRefused) return this.#pushRefused;
    if (!pushJwksUrlOf(card)) return { webhook, url: webhook.url, jwks: undefined };
    // A JWKS off the agent's own origins would make the planner GET an address the card chose:
    // such a peer is followed by polling instead.
    const checked = pushJwksOnAgentOrigin(card, agentOriginsOf(card, undefined));
    if ('refused' in checked) return checked.refused;
    return { webhook, url: webhook.url, jwks: checked.jwks };
  }

  /** Starts `step` on its agent, records the sub-task on our own task, and returns it. */
  async start(step: Step, data: Record<string, unknown>, started: SubtaskRef[]): Promise<SubtaskRef> {
    const client = await this.client(step);
    const card = client.card!;
    const skill = pickSkill(card, step);
    if (!skill)
      throw new Error(
        `the card of ${card.name} at ${this.url(step)} offers no skill to ${step === 'tests' ? 'run tests' : 'deploy'}`,
      );
    const send = (push?: { url: string; token: string }) =>
      client.send({
        data,
        // One id per planner task and step: a start repeated after a restart returns the same sub-task.
        messageId: `${this.ctx.taskId}:${step}`,
        returnImmediately: true,
        metadata: { skill: skill.id },
        // The test run's webhook goes with the request, so its first update is pushed too.
        ...(push ? { pushNotificationConfig: { id: PLANNER_PUSH_CONFIG_ID, ...push } } : {}),
        signal: this.ctx.signal,
      });
    const push = step === 'tests' ? this.#pushTarget(card) : undefined;
    let reply: Awaited<ReturnType<typeof send>>;
    if (typeof push === 'object') {
      const early = push.webhook.expect(push.jwks);
      try {
        try {
          reply = await send({ url: push.url, token: push.webhook.token });
        } catch (error) {
          this.ctx.signal.throwIfAborted();
          // Refused with the webhook (its address, say): start without it, and poll.
          this.#pushRefused = `${card.name} refused the webhook (${(error as Error).message})`;
          reply = await send();
        }
        if (reply.kind === 'task' && !this.#pushRefused) {
          const watch = push.webhook.watch(reply.task.id, push.jwks);
          if (watch) this.#watches.set(reply.task.id, watch);
        }
      } finally {
        early.done();
      }
    } else {
      reply = await send();
    }
    if (reply.kind !== 'task')
      throw new Error(`${card.name} answered with a message instead of a task: ${textOf(reply.message)}`);
    const ref: SubtaskRef = {
      step,
      agent: card.name,
      url: this.url(step),
      skill: skill.id,
      taskId: reply.task.id,
      ...(reply.task.contextId ? { contextId: reply.task.contextId } : {}),
    };
    started.push(ref);
    // Persisted before we wait on it: a later turn, the cancel hook or a restart can find it.
    await this.task.artifact({
      artifactId: subtaskArtifactId(step),
      name: `${subtaskArtifactId(step)}.json`,
      data: { ...ref },
    });
    await this.task.written();
    await this.progress({
      step,
      agent: ref.agent,
      taskId: ref.taskId,
      state: reply.task.status.state,
      text: `task ${ref.taskId} (${skill.id})`,
    });
    return ref;
  }

  /**
   * Follows the test run without a stream: by push notifications to the planner's webhook when
   * the test-runner's card offers them, else by polling GetTask; says which in its progress. A
   * run this turn did not start (a later turn, a restart) gets the webhook registered again,
   * so a restarted planner is reached at its new address with its new token.
   */
  async followTests(ref: SubtaskRef): Promise<Task> {
    const client = await this.client('tests');
    const signal = this.ctx.signal;
    const note = (n: FollowNote) =>
      this.progress({ step: ref.step, agent: ref.agent, taskId: ref.taskId, ...n });
    let watch = this.#watches.get(ref.taskId);
    this.#watches.delete(ref.taskId);
    try {
      // A later turn (or a restart after the run ended) only re-reads it. A run this turn
      // started with the webhook goes on below even when it has already ended, so what it
      // pushed is shown.
      const now = await client.getTask(ref.taskId, { signal, historyLength: 0 });
      if (settled(now.status.state) && !watch) return now;
      let target = this.#pushTarget(client.card!);
      if (typeof target === 'object' && !watch) {
        watch = target.webhook.watch(ref.taskId, target.jwks);
        if (!watch) target = 'the planner follows too many tasks by push already';
        else {
          try {
            await client.createTaskPushNotificationConfig(
              {
                taskId: ref.taskId,
                id: PLANNER_PUSH_CONFIG_ID,
                url: target.url,
                token: target.webhook.token,
              },
              { signal },
            );
          } catch (error) {
            signal.throwIfAborted();
            target = `registering the webhook failed (${(error as Error).message})`;
          }
        }
      }
      if (typeof target === 'object' && watch) {
        await note({
          text: `following task ${ref.taskId} by push notification (webhook ${target.url})`,
          via: 'push',
        });
        return await followByPush(client, ref.taskId, watch, note, signal, this.options.follow);
      }
      await note({ text: `${target}: following task ${ref.taskId} by polling GetTask`, via: 'poll' });
      return await followByPolling(client, ref.taskId, note, signal, this.options.follow);
    } finally {
      watch?.close();
    }
  }

  /** Follows a sub-task until it ends or waits for input, forwarding its progress; returns it as it is then. */
  async follow(ref: SubtaskRef): Promise<Task> {
    const client = await this.client(ref.step);
    for await (const event of client.followTask(ref.taskId, { signal: this.ctx.signal })) {
      if (event.kind === 'statusUpdate') {
        const status = event.statusUpdate.status;
        const text = status.message ? textOf(status.message) : undefined;
        await this.progress({
          step: ref.step,
          agent: ref.agent,
          taskId: ref.taskId,
          state: status.state,
          ...(text ? { text } : {}),
          via: 'stream',
        });
      } else if (event.kind === 'artifactUpdate') {
        const a = event.artifactUpdate.artifact;
        await this.progress({
          step: ref.step,
          agent: ref.agent,
          taskId: ref.taskId,
          artifact: a.name ?? a.artifactId,
          text: `artifact ${a.name ?? a.artifactId}`,
        });
      }
    }
    return client.getTask(ref.taskId, { signal: this.ctx.signal });
  }
}
