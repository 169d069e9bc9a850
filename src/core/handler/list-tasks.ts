/** ListTasks: the caller's tasks, newest status first, in pages under signed page tokens. */
import { parseTaskState, TaskState } from '../../model/enums.js';
import type { ListTasksRequest, ListTasksResponse } from '../../model/schema.js';
import { timestampToMillis } from '../../model/timestamp.js';
import type { ServerCallContext } from '../context.js';
import type { CursorBinding, ListCursorCodec } from '../list-cursor.js';
import type { ListPosition, TaskStore } from '../stores/task-store.js';
import { viewTask } from '../task-view.js';
import { checkHistoryLength, invalidParam } from './refusals.js';

const DEFAULT_PAGE_SIZE = 50;

export async function listTasks(
  store: TaskStore,
  cursors: ListCursorCodec,
  request: ListTasksRequest,
  ctx: ServerCallContext,
): Promise<ListTasksResponse> {
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw invalidParam('pageSize', 'must be between 1 and 100');
  }
  checkHistoryLength(request.historyLength, 'historyLength');
  let status: TaskState | undefined;
  if (request.status !== undefined && request.status !== TaskState.UNSPECIFIED) {
    status = parseTaskState(request.status);
    if (status === undefined) throw invalidParam('status', 'is not a TaskState');
  }
  let after: number | undefined;
  if (request.statusTimestampAfter !== undefined) {
    after = timestampToMillis(request.statusTimestampAfter);
    if (!Number.isFinite(after)) throw invalidParam('statusTimestampAfter', 'is not an RFC 3339 timestamp');
  }
  const contextId = request.contextId ? request.contextId : undefined;
  const binding: CursorBinding = {
    tenant: ctx.tenant,
    principal: ctx.principal.id,
    contextId,
    status,
    statusTimeAtOrAfterMs: after,
  };
  let position: ListPosition | undefined;
  if (request.pageToken) {
    position = cursors.decode(binding, request.pageToken);
    if (!position) {
      throw invalidParam('pageToken', 'is not a page token issued for this caller and these filters');
    }
  }
  const page = await store.list({
    tenant: ctx.tenant,
    owner: ctx.principal.id,
    limit: pageSize,
    ...(contextId !== undefined ? { contextId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(after !== undefined ? { statusTimeAtOrAfterMs: after } : {}),
    ...(position ? { after: position } : {}),
  });
  const includeArtifacts = request.includeArtifacts === true;
  const tasks = page.tasks.map((record) => {
    const task = viewTask(record.task, request.historyLength, includeArtifacts);
    if (includeArtifacts && !task.artifacts) task.artifacts = [];
    return task;
  });
  const last = page.tasks[page.tasks.length - 1];
  return {
    tasks,
    nextPageToken:
      page.hasMore && last
        ? cursors.encode(binding, { statusTimeMs: last.statusTimeMs, id: last.task.id })
        : '',
    pageSize,
    totalSize: page.totalSize,
  };
}
