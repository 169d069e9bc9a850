/** The four push notification config operations, on the caller's own tasks only. */
import { TaskNotFoundError } from '../../errors/a2a-error.js';
import { newId } from '../../model/ids.js';
import type {
  DeleteTaskPushNotificationConfigRequest,
  Empty,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { generationOn } from '../generation.js';
import { wirePushConfig, type StoredPushConfig } from '../stores/push-config-store.js';
import { requireTask, scopeOf, type HandlerDependencies } from './dependencies.js';
import { invalidParam, requirePush } from './refusals.js';

const DEFAULT_PUSH_PAGE_SIZE = 100;

export async function createTaskPushNotificationConfig(
  deps: HandlerDependencies,
  request: TaskPushNotificationConfig,
  ctx: ServerCallContext,
): Promise<TaskPushNotificationConfig> {
  requirePush(deps.card());
  if (!request.taskId) throw invalidParam('taskId', 'is required');
  await requireTask(deps, ctx, request.taskId);
  const config = pushConfigFor(request, request.taskId, ctx, generationOn(deps.generation, ctx));
  const stored = await deps.pushStore.put(scopeOf(ctx), config);
  return wirePushConfig(stored);
}

export async function getTaskPushNotificationConfig(
  deps: HandlerDependencies,
  request: GetTaskPushNotificationConfigRequest,
  ctx: ServerCallContext,
): Promise<TaskPushNotificationConfig> {
  requirePush(deps.card());
  await requireTask(deps, ctx, request.taskId);
  const config = await deps.pushStore.get(scopeOf(ctx), request.taskId, request.id);
  if (!config)
    throw new TaskNotFoundError(
      `push notification config ${request.id} not found for task ${request.taskId}`,
    );
  return wirePushConfig(config);
}

export async function listTaskPushNotificationConfigs(
  deps: HandlerDependencies,
  request: ListTaskPushNotificationConfigsRequest,
  ctx: ServerCallContext,
): Promise<ListTaskPushNotificationConfigsResponse> {
  requirePush(deps.card());
  const pageSize = request.pageSize ? request.pageSize : DEFAULT_PUSH_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw invalidParam('pageSize', 'must be between 0 and 100');
  }
  await requireTask(deps, ctx, request.taskId);
  let afterId: string | undefined;
  if (request.pageToken) {
    afterId = decodePushToken(request.pageToken);
    if (afterId === undefined) throw invalidParam('pageToken', 'is not a page token issued by this server');
  }
  const page = await deps.pushStore.list(scopeOf(ctx), request.taskId, pageSize, afterId);
  return {
    configs: page.configs.map(wirePushConfig),
    nextPageToken: page.nextAfterId === undefined ? '' : encodePushToken(page.nextAfterId),
  };
}

export async function deleteTaskPushNotificationConfig(
  deps: HandlerDependencies,
  request: DeleteTaskPushNotificationConfigRequest,
  ctx: ServerCallContext,
): Promise<Empty> {
  requirePush(deps.card());
  await requireTask(deps, ctx, request.taskId);
  await deps.pushStore.delete(scopeOf(ctx), request.taskId, request.id);
  return {};
}

/**
 * The config as stored: for `taskId`, with an id (generated when the client gave none), without
 * `tenant`, with the protocol version of the call that registers it (so a config created by
 * a v0.3 client is notified in v0.3 form, SRV-COMPAT-8), and `generation` when that call opted
 * in to the A2A 1.1 draft (GEN-6). Only the wire fields are taken from `request`: a client
 * cannot set what is recorded beside them.
 */
export function pushConfigFor(
  request: TaskPushNotificationConfig,
  taskId: string,
  ctx: Pick<ServerCallContext, 'protocolVersion'>,
  generation: boolean,
): StoredPushConfig & { id: string; taskId: string } {
  return {
    id: request.id ? request.id : newId(),
    taskId,
    url: request.url,
    ...(request.token !== undefined ? { token: request.token } : {}),
    ...(request.authentication !== undefined ? { authentication: request.authentication } : {}),
    protocolVersion: ctx.protocolVersion,
    ...(generation ? { generation: true } : {}),
  };
}

function encodePushToken(afterId: string): string {
  return Buffer.from(afterId, 'utf8').toString('base64url');
}

function decodePushToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const id = Buffer.from(token, 'base64url').toString('utf8');
  return id.length > 0 && encodePushToken(id) === token ? id : undefined;
}
