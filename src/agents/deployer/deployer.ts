/**
 * `deployer`: deploys a commit of a service to an environment (skill `deploy`). It asks the
 * caller to confirm (INPUT_REQUIRED), deploys for real under its data directory (see
 * release.ts) and completes with `deployment.json`. Production needs the scope
 * `deploy:production`: without it the task waits in AUTH_REQUIRED until a message on the same
 * task arrives from a principal that holds it. Who the caller is comes only from
 * `ctx.principal`, which the server's authentication fills; the agent never reads a token.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Principal } from '../../core/context.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../core/executor.js';
import { messageData } from '../../core/executor.js';
import type { Message } from '../../model/schema.js';
import { KIT_VERSION, type BuiltInCard } from '../card.js';
import { isRepository, resolveCommit } from '../test-runner/git.js';
import { deployRelease, recordDeployment } from './release.js';
import { deployScope, hasScope } from './tokens.js';

/** Environments the deployer knows. */
export const ENVIRONMENTS = ['staging', 'production'] as const;

/** Options of {@link createDeployerExecutor}. */
export interface DeployerOptions {
  /** Where releases and the deployment log are written. */
  dataDir: string;
}

/** What a caller asks the deployer to do. */
export interface DeployRequest {
  service: string;
  repo: string;
  commit: string;
  env: string;
}

/** The `deployment.json` artifact's content. */
export interface DeploymentRecord {
  service: string;
  env: string;
  commit: string;
  release: string;
  current: string;
  previous?: string;
  deployedBy: string;
  deployedAt: string;
}

/** Marks the agent's own questions, so a later turn knows which one it answers. */
type Stage = 'confirm' | 'auth';
const STAGE_KEY = 'deployerStage';

/** Reads the request from a data part `{service?, repo, commit, env?}` or `deploy <repo> <commit> [to <env>]`. */
export function parseDeployRequest(message: Message): DeployRequest | string {
  const data = messageData(message) as Partial<Record<keyof DeployRequest, unknown>> | undefined;
  let raw: Partial<Record<keyof DeployRequest, unknown>>;
  if (data && typeof data === 'object') raw = data;
  else {
    const text = message.parts.map((p) => p.text ?? '').join(' ');
    const m = /(?:deploy\s+)?(\S+)\s+(\S+)(?:\s+to\s+(\S+))?/i.exec(text.trim());
    raw = m ? { repo: m[1], commit: m[2], env: m[3] } : {};
  }
  const { repo, commit } = raw;
  const env = raw.env ?? 'staging';
  if (typeof repo !== 'string' || typeof commit !== 'string' || !repo || !commit) {
    return 'send {"repo": "<path>", "commit": "<rev>", "env": "staging"} as a data part, or "deploy <repo> <commit> to <env>"';
  }
  if (typeof env !== 'string' || !(ENVIRONMENTS as readonly string[]).includes(env)) {
    return `unknown environment ${JSON.stringify(env)} (known: ${ENVIRONMENTS.join(', ')})`;
  }
  const service = typeof raw.service === 'string' && raw.service ? raw.service : 'payments-api';
  if (!/^[\w.-]+$/.test(service)) return `not a service name: ${JSON.stringify(service)}`;
  return { service, repo, commit, env };
}

/** The stage of the agent's last question in the task's history, if it asked one. */
function lastStage(ctx: RequestContext): Stage | undefined {
  const history = ctx.task?.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'ROLE_AGENT') continue;
    const stage = m.metadata?.[STAGE_KEY];
    if (stage === 'confirm' || stage === 'auth') return stage;
  }
  return undefined;
}

const YES = /^\s*(y|yes|ok|confirm|go|deploy)\b/i;

function isYes(ctx: RequestContext): boolean {
  const data = ctx.data as { confirm?: unknown } | undefined;
  if (data && typeof data === 'object' && typeof data.confirm === 'boolean') return data.confirm;
  return YES.test(ctx.text);
}

/** Builds the deployer's executor. */
export function createDeployerExecutor(options: DeployerOptions): AgentExecutor {
  const ask = (task: TaskEventSink, stage: Stage, text: string, request: DeployRequest) => {
    const message = { parts: [{ text }, { data: { ...request } }], metadata: { [STAGE_KEY]: stage } };
    return stage === 'auth' ? task.requireAuth(message) : task.requireInput(message);
  };
  const question = (r: DeployRequest, sha: string) => `deploy ${r.service}@${sha.slice(0, 7)} to ${r.env}?`;
  const authText = (r: DeployRequest, principal: Principal) =>
    `deploying to ${r.env} needs scope ${deployScope(r.env)}, which ${principal.id} lacks: send a message on this task with a token that has it`;

  return {
    async execute(ctx, task) {
      // The request is always the task's first message: later turns only answer questions.
      const first = ctx.task?.history?.find((m) => m.role === 'ROLE_USER') ?? ctx.message;
      const request = parseDeployRequest(first);
      if (typeof request === 'string') return task.reject(request);
      const repo = isAbsolute(request.repo) ? request.repo : resolve(request.repo);
      if (!(await isRepository(repo))) return task.reject(`not a git repository: ${request.repo}`);
      const sha = await resolveCommit(repo, request.commit);
      if (!sha) return task.reject(`commit ${request.commit} does not exist in ${request.repo}`);

      // Every turn is authorized on its own: the scope of whoever sent this message counts.
      // Staging needs an authenticated caller (the server's gate); production also a scope.
      if (request.env === 'production' && !hasScope(ctx.principal, deployScope(request.env))) {
        return ask(task, 'auth', authText(request, ctx.principal), request);
      }
      const stage = lastStage(ctx);
      if (stage !== 'confirm') return ask(task, 'confirm', question(request, sha), request);
      if (!isYes(ctx)) return task.cancel(`not deployed: ${ctx.text || 'declined'}`);

      await task.working(`deploying ${request.service}@${sha.slice(0, 7)} to ${request.env}`);
      const release = await deployRelease(options.dataDir, request.env, repo, sha);
      const record: DeploymentRecord = {
        service: request.service,
        env: request.env,
        commit: sha,
        release: release.path,
        current: release.current,
        ...(release.previous ? { previous: release.previous } : {}),
        deployedBy: ctx.principal.id,
        deployedAt: new Date().toISOString(),
      };
      await recordDeployment(options.dataDir, { ...record, taskId: ctx.taskId });
      await task.artifact({ artifactId: 'deployment', name: 'deployment.json', data: record });
      await task.complete(undefined, `deployed ${request.service}@${sha.slice(0, 7)} to ${request.env}`);
    },
  };
}

/** The deployer's card: bearer authentication declared, required on every call. */
export const deployerCard: BuiltInCard = {
  name: 'deployer',
  description: 'Deploys a commit of a service to staging or production after confirmation.',
  version: KIT_VERSION,
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['application/json', 'text/plain'],
  securitySchemes: {
    bearer: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        description: 'demo tokens: scope deploy:staging, or deploy:staging and deploy:production',
      },
    },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  skills: [
    {
      id: 'deploy',
      name: 'Deploy',
      description:
        'Asks to confirm, copies the commit into releases/<env>/<commit>, switches the current symlink, completes with deployment.json. Production needs scope deploy:production.',
      tags: ['deploy', 'release'],
      examples: [
        '{"service": "payments-api", "repo": "/path/to/payments-api", "commit": "4f2a9c1", "env": "staging"}',
      ],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json'],
    },
  ],
};
