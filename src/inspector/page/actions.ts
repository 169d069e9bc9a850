/** What the views do: connect, send, stream, subscribe, cancel; each result lands in the store. */
import type {
  Artifact,
  Message,
  Part,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
} from '../../model/schema.js';
import type {
  ApiError,
  ConnectResult,
  ConnectSettings,
  FeedItem,
  PushDelivery,
  StreamItem,
  WireSummary,
} from '../api-types.js';
import { BackendError, get, post, readSse } from './api.js';
import { isTerminal, stateLabel, textOfMessage } from './format.js';
import { store, type Turn } from './store.js';

/** Running streams by timeline id, so the page can stop them. */
const running = new Map<number, AbortController>();

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Connects with `settings`; the Card view opens on success. */
export async function connect(settings: ConnectSettings): Promise<void> {
  store.update(() => ({ settings, connecting: true, notice: undefined }));
  store.resetConversation();
  try {
    const replaces = store.state.connection?.session;
    const connection = await post<ConnectResult>('/api/connect', {
      ...settings,
      ...(replaces ? { replaces } : {}),
    });
    store.update(() => ({ connection, connecting: false, tab: 'card' }));
    if (connection.error) store.notify('error', connection.error);
  } catch (error) {
    store.update(() => ({ connecting: false, connection: undefined }));
    store.notify('error', messageOf(error));
  }
}

/** Calls a unary operation; agent errors come back as `{ error }`. */
export async function call<T>(method: string, request: unknown): Promise<{ result?: T; error?: ApiError }> {
  const session = store.state.connection?.session;
  if (!session) return { error: { type: 'NotConnected', message: 'connect to an agent first' } };
  try {
    return await post<{ result?: T; error?: ApiError }>('/api/call', { session, method, request });
  } catch (error) {
    return { error: { type: 'BackendError', message: messageOf(error) } };
  }
}

function addTurn(turn: Turn): void {
  store.conversation((c) => ({ turns: [...c.turns, turn] }));
}

function applyArtifact(update: TaskArtifactUpdateEvent): void {
  store.conversation((c) => {
    // The id is the agent's: an own-key lookup, so `constructor` finds no artifact.
    const id = update.artifact.artifactId;
    const prior = Object.hasOwn(c.artifacts, id) ? c.artifacts[id] : undefined;
    const merged: Artifact =
      prior && update.append
        ? { ...prior, parts: [...prior.parts, ...update.artifact.parts] }
        : update.artifact;
    return { artifacts: { ...c.artifacts, [merged.artifactId]: merged } };
  });
}

function applyStatus(taskId: string, contextId: string | undefined, status: TaskStatus): void {
  const text = textOfMessage(status.message);
  const interrupted =
    status.state === 'TASK_STATE_INPUT_REQUIRED' || status.state === 'TASK_STATE_AUTH_REQUIRED';
  store.conversation((c) => ({
    taskId: isTerminal(status.state) ? undefined : taskId,
    ...(contextId ? { contextId } : {}),
    taskState: status.state,
    prompt: interrupted
      ? { state: status.state, text: text || `the agent is waiting (${stateLabel(status.state)})` }
      : undefined,
    turns:
      c.turns.at(-1)?.state === status.state && c.turns.at(-1)?.text === text
        ? c.turns
        : [
            ...c.turns,
            { at: Date.now(), role: 'status', state: status.state, taskId, ...(text ? { text } : {}) },
          ],
  }));
}

function applyTask(task: Task): void {
  store.conversation((c) => ({
    artifacts: Object.fromEntries([
      ...Object.entries(c.artifacts),
      ...(task.artifacts ?? []).map((a) => [a.artifactId, a]),
    ]),
  }));
  applyStatus(task.id, task.contextId, task.status);
}

function applyMessage(message: Message): void {
  if (message.contextId) store.conversation(() => ({ contextId: message.contextId }));
  addTurn({ at: Date.now(), role: 'agent', parts: message.parts, text: textOfMessage(message) });
}

/** Folds one stream event into the conversation. */
function applyEvent(item: StreamItem): void {
  const e = item.event as Record<string, unknown>;
  if (item.kind === 'task') applyTask(e.task as Task);
  else if (item.kind === 'message') applyMessage(e.message as Message);
  else if (item.kind === 'statusUpdate') {
    const u = e.statusUpdate as { taskId: string; contextId?: string; status: TaskStatus };
    applyStatus(u.taskId, u.contextId, u.status);
  } else if (item.kind === 'artifactUpdate') applyArtifact(e.artifactUpdate as TaskArtifactUpdateEvent);
}

/**
 * Runs a streaming operation into the timeline (and, when `conversation`, the conversation).
 * A stream that breaks is marked so; the caller may resubscribe.
 */
export async function runStream(
  method: 'SendStreamingMessage' | 'SubscribeToTask',
  request: unknown,
  options: { label: string; taskId?: string; conversation?: boolean; reconnectOf?: number },
): Promise<void> {
  const session = store.state.connection?.session;
  if (!session) return store.notify('error', 'connect to an agent first');
  const id = store.openStream(options.label, options.taskId, options.reconnectOf);
  const abort = new AbortController();
  running.set(id, abort);
  let failed: string | undefined;
  try {
    await readSse(
      '/api/stream',
      { method: 'POST', body: { session, method, request }, signal: abort.signal },
      (name, data) => {
        if (name === 'item') {
          const item = data as StreamItem;
          store.addItem(id, item);
          if (!options.taskId) {
            const ev = item.event as { task?: { id: string }; statusUpdate?: { taskId: string } };
            const taskId = ev.task?.id ?? ev.statusUpdate?.taskId;
            if (taskId) store.stream(id, () => ({ taskId }));
          }
          if (options.conversation) applyEvent(item);
        } else if (name === 'error') {
          const e = data as ApiError & { wireSeq?: number };
          failed = e.message;
          store.stream(id, () => ({ ...(e.wireSeq ? { wireSeq: e.wireSeq } : {}) }));
        } else if (name === 'end') {
          const e = data as { wireSeq?: number };
          if (e.wireSeq) store.stream(id, () => ({ wireSeq: e.wireSeq }));
        }
      },
    );
  } catch (error) {
    if (!abort.signal.aborted)
      failed = error instanceof BackendError ? error.message : `the stream broke: ${messageOf(error)}`;
  } finally {
    running.delete(id);
  }
  const status = abort.signal.aborted ? 'stopped' : failed ? 'broken' : 'ended';
  store.stream(id, () => ({ status, endedAt: Date.now(), ...(failed ? { error: failed } : {}) }));
  if (failed && options.conversation) {
    addTurn({ at: Date.now(), role: 'error', text: failed });
    store.notify('error', failed);
  }
}

/** Stops reading a timeline stream (the task goes on). */
export function stopStream(id: number): void {
  running.get(id)?.abort();
}

/** Sends a message on the conversation's context (and task, when it waits for an answer). */
export async function sendMessage(parts: Part[], streaming: boolean): Promise<void> {
  const c = store.state.conversation;
  const message: Message = {
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(c.contextId ? { contextId: c.contextId } : {}),
    ...(c.taskId ? { taskId: c.taskId } : {}),
  } as Message;
  const request = { message, configuration: { returnImmediately: false } };
  store.conversation((conv) => ({
    busy: true,
    prompt: undefined,
    turns: [
      ...conv.turns,
      {
        at: Date.now(),
        role: 'user',
        parts,
        text: textOfMessage(message),
        ...(c.taskId ? { taskId: c.taskId } : {}),
      },
    ],
  }));
  try {
    if (streaming) {
      await runStream('SendStreamingMessage', request, {
        label: `SendStreamingMessage${c.taskId ? ` on ${c.taskId}` : ''}`,
        conversation: true,
      });
    } else {
      const reply = await call<{ kind: string; task?: Task; message?: Message }>('SendMessage', request);
      if (reply.error) {
        addTurn({ at: Date.now(), role: 'error', text: `${reply.error.type}: ${reply.error.message}` });
      } else if (reply.result?.kind === 'task' && reply.result.task) applyTask(reply.result.task);
      else if (reply.result?.message) applyMessage(reply.result.message);
    }
  } finally {
    store.conversation(() => ({ busy: false }));
  }
}

/** Cancels a task; the answer (or error) is told in the notice line. */
export async function cancelTask(taskId: string): Promise<Task | undefined> {
  const reply = await call<Task>('CancelTask', { id: taskId });
  if (reply.error) {
    store.notify('error', `cancel ${taskId}: ${reply.error.message}`);
    return undefined;
  }
  store.notify('info', `task ${taskId} is ${stateLabel(reply.result?.status.state)}`);
  if (reply.result && store.state.conversation.taskId === taskId) applyTask(reply.result);
  return reply.result;
}

/** Reads the backend's live feed (wire changes, push deliveries); reconnects after a break. */
export async function followFeed(): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    try {
      // What happened before this page loaded (or while the feed was down), then live changes.
      const [wire, pushes] = await Promise.all([
        get<WireSummary[]>('/api/wire'),
        get<PushDelivery[]>('/api/push'),
      ]);
      for (const w of wire) store.wireSummary(w);
      for (const p of pushes) store.push(p);
      await readSse('/api/feed', {}, (name, data) => {
        if (name !== 'feed') return;
        if (store.state.feedError) store.update(() => ({ feedError: undefined }));
        const item = data as FeedItem;
        if (item.type === 'wire') store.wireSummary(item.wire);
        else store.push(item.push);
      });
      store.update(() => ({ feedError: 'the inspector backend closed the live feed; reconnecting' }));
    } catch (error) {
      store.update(() => ({
        feedError: `the inspector backend is unreachable (${messageOf(error)}); retrying`,
      }));
    }
    await new Promise((r) => setTimeout(r, Math.min(5000, 500 * (attempt + 1))));
  }
}
