/** Tasks: ListTasks with filters and paging; a task's detail, subscribe, cancel, push to the inspector. */
import { useEffect, useState } from 'preact/hooks';
import type { ListTaskPushNotificationConfigsResponse, ListTasksResponse, Task } from '../../model/schema.js';
import type { PushReceiverInfo } from '../api-types.js';
import { post } from './api.js';
import { call, cancelTask, runStream } from './actions.js';
import { clock, stateLabel } from './format.js';
import { JsonView } from './json-view.js';
import { ArtifactView, PartView } from './parts.js';
import { store, useStore } from './store.js';

const STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
  'CANCELED',
  'FAILED',
  'REJECTED',
];

/** Points `taskId`'s push notifications at the inspector's receiver. */
export async function pushToInspector(taskId: string): Promise<void> {
  const session = store.state.connection?.session;
  try {
    const r = await post<{ receiver?: PushReceiverInfo; error?: { message: string } }>(
      '/api/push/receivers',
      { session, taskId },
    );
    if (r.error) store.notify('error', `push config for ${taskId}: ${r.error.message}`);
    else store.notify('info', `task ${taskId} now pushes to ${r.receiver?.url}`);
  } catch (error) {
    store.notify('error', (error as Error).message);
  }
}

function Detail({ id }: { id: string }) {
  const s = useStore();
  const [task, setTask] = useState<Task | undefined>(undefined);
  const [configs, setConfigs] = useState<ListTaskPushNotificationConfigsResponse | undefined>(undefined);
  const [error, setError] = useState('');
  const load = async () => {
    const r = await call<Task>('GetTask', { id, historyLength: 100 });
    if (r.error) return setError(r.error.message);
    setError('');
    setTask(r.result);
    if (s.connection?.card?.card?.capabilities.pushNotifications) {
      const c = await call<ListTaskPushNotificationConfigsResponse>('ListTaskPushNotificationConfigs', {
        taskId: id,
      });
      setConfigs(c.result);
    }
  };
  useEffect(() => void load(), [id]);
  if (error)
    return (
      <p class="notice error" role="alert">
        {error}
      </p>
    );
  if (!task) return <p class="muted">loading {id}…</p>;
  return (
    <section class="task-detail" aria-label={`Task ${id}`} data-testid="task-detail">
      <h3>
        Task <span class="mono">{task.id}</span> ·{' '}
        <span data-testid="detail-state">{stateLabel(task.status.state)}</span>
      </h3>
      <p class="muted">
        context <span class="mono">{task.contextId}</span> · updated {task.status.timestamp ?? '—'}
      </p>
      <div class="actions">
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
        <button
          type="button"
          onClick={() => {
            void runStream('SubscribeToTask', { id }, { label: `SubscribeToTask ${id}`, taskId: id });
            store.update(() => ({ tab: 'timeline' }));
          }}
        >
          Subscribe
        </button>
        <button type="button" class="danger" onClick={() => void cancelTask(id).then(() => load())}>
          Cancel
        </button>
        <button type="button" onClick={() => void pushToInspector(id).then(() => load())}>
          Push to the inspector
        </button>
      </div>
      <h4>History ({task.history?.length ?? 0})</h4>
      <ol class="turns">
        {(task.history ?? []).map((m) => (
          <li key={m.messageId} class={`turn ${m.role === 'ROLE_USER' ? 'user' : 'agent'}`}>
            <span class="when" />
            <span class="who">{m.role === 'ROLE_USER' ? 'user' : 'agent'}</span>
            <div class="what">
              {m.parts.map((p, i) => (
                <PartView key={i} part={p} />
              ))}
            </div>
          </li>
        ))}
      </ol>
      <h4>Artifacts ({task.artifacts?.length ?? 0})</h4>
      {(task.artifacts ?? []).map((a) => (
        <ArtifactView key={a.artifactId} artifact={a} />
      ))}
      <h4>Push configs</h4>
      {configs ? (
        <JsonView value={configs.configs} open={2} />
      ) : (
        <p class="muted">none, or the agent does not declare push</p>
      )}
      <h4>Raw</h4>
      <JsonView value={task} open={1} />
    </section>
  );
}

export function TasksView() {
  const s = useStore();
  const [contextId, setContextId] = useState('');
  const [state, setState] = useState('');
  const [after, setAfter] = useState('');
  const [pageSize, setPageSize] = useState('20');
  const [tokens, setTokens] = useState<string[]>(['']);
  const [page, setPage] = useState<ListTasksResponse | undefined>(undefined);
  const [error, setError] = useState('');
  const [open, setOpen] = useState<string | undefined>(s.openTask);
  if (!s.connection?.binding) return <p class="muted">Connect to an agent first (Connection).</p>;

  const list = async (pageToken: string, stack: string[]) => {
    const request = {
      ...(contextId ? { contextId } : {}),
      ...(state ? { status: `TASK_STATE_${state}` } : {}),
      ...(after ? { statusTimestampAfter: new Date(after).toISOString() } : {}),
      pageSize: Number(pageSize) || 20,
      ...(pageToken ? { pageToken } : {}),
    };
    const r = await call<ListTasksResponse>('ListTasks', request);
    if (r.error) return setError(`${r.error.type}: ${r.error.message}`);
    setError('');
    setPage(r.result);
    setTokens(stack);
  };
  const current = tokens.at(-1) ?? '';
  return (
    <section class="tasks" aria-label="Tasks">
      <form
        class="row filters"
        onSubmit={(e) => {
          e.preventDefault();
          void list('', ['']);
        }}
      >
        <label>
          Context
          <input name="contextId" value={contextId} onInput={(e) => setContextId(e.currentTarget.value)} />
        </label>
        <label>
          State
          <select name="state" value={state} onChange={(e) => setState(e.currentTarget.value)}>
            <option value="">any</option>
            {STATES.map((x) => (
              <option key={x} value={x}>
                {x.toLowerCase().replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Updated after
          <input
            name="after"
            type="datetime-local"
            value={after}
            onInput={(e) => setAfter(e.currentTarget.value)}
          />
        </label>
        <label>
          Page size
          <input
            name="pageSize"
            type="number"
            min={1}
            max={100}
            value={pageSize}
            onInput={(e) => setPageSize(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          List tasks
        </button>
      </form>
      {error ? (
        <p class="notice error" role="alert">
          {error}
        </p>
      ) : null}
      {page ? (
        <>
          <p class="muted">
            {page.tasks.length} task(s) on this page{page.totalSize ? ` of ${page.totalSize}` : ''} ·{' '}
            {clock(Date.now())}
          </p>
          <table class="grid tasks-table">
            <thead>
              <tr>
                <th>task</th>
                <th>context</th>
                <th>state</th>
                <th>updated</th>
              </tr>
            </thead>
            <tbody>
              {page.tasks.map((t) => (
                <tr key={t.id} class={open === t.id ? 'current' : ''}>
                  <td>
                    <button type="button" class="link mono" onClick={() => setOpen(t.id)}>
                      {t.id}
                    </button>
                  </td>
                  <td class="mono">{t.contextId}</td>
                  <td>{stateLabel(t.status.state)}</td>
                  <td class="mono">{t.status.timestamp ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="actions">
            <button
              type="button"
              disabled={tokens.length < 2}
              onClick={() => void list(tokens.at(-2) ?? '', tokens.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={!page.nextPageToken}
              onClick={() => void list(page.nextPageToken, [...tokens, page.nextPageToken])}
            >
              Next page
            </button>
            <span class="muted">{current ? `page token ${current.slice(0, 16)}…` : 'first page'}</span>
          </div>
        </>
      ) : null}
      {open ? <Detail key={open} id={open} /> : null}
    </section>
  );
}
