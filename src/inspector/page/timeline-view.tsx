/** The live event timeline: every stream and subscription, each event with kind, state, time, raw link. */
import type { StreamItem } from '../api-types.js';
import { runStream, stopStream } from './actions.js';
import { clock, stateLabel, textOfMessage } from './format.js';
import { store, useStore, type StreamRecord } from './store.js';
import type { Message } from '../../model/schema.js';

function summary(item: StreamItem): string {
  const e = item.event as Record<string, Record<string, unknown> | undefined>;
  if (item.kind === 'artifactUpdate') {
    const u = e.artifactUpdate as {
      artifact: { artifactId: string; parts: unknown[] };
      append?: boolean;
      lastChunk?: boolean;
    };
    return `artifact ${u.artifact.artifactId}: ${u.artifact.parts.length} part(s)${u.append ? ', append' : ''}${u.lastChunk ? ', last chunk' : ''}`;
  }
  if (item.kind === 'message') return textOfMessage(e.message as unknown as Message).slice(0, 120);
  if (item.kind === 'task') return `task ${(e.task as { id: string }).id}`;
  const status = (e.statusUpdate as { status?: { message?: Message } } | undefined)?.status;
  return textOfMessage(status?.message).slice(0, 120);
}

function openRaw(seq: number | undefined, event?: number): void {
  if (seq === undefined) return store.notify('info', 'the wire record of this stream is not known yet');
  store.update(() => ({ tab: 'wire', selectedWire: { seq, ...(event !== undefined ? { event } : {}) } }));
}

/** What a resubscription shows about the time the stream was away. */
function Gap({ record }: { record: StreamRecord }) {
  const s = useStore();
  const before = s.streams.find((r) => r.id === record.reconnectOf);
  const lastState = [...(before?.items ?? [])].reverse().find((i) => i.state)?.state;
  const nowState = record.items[0]?.state;
  const changed = lastState && nowState && lastState !== nowState;
  return (
    <p class={changed ? 'notice warn' : 'muted'} data-testid="gap">
      {changed
        ? `Gap: the task went from ${stateLabel(lastState)} to ${stateLabel(nowState)} while the stream was down; the events in between were not streamed.`
        : 'Events between the break and this resubscription are not streamed: the first event is the task as it is now.'}
    </p>
  );
}

function Stream({ record }: { record: StreamRecord }) {
  return (
    <section class={`stream ${record.status}`} aria-label={record.label} data-testid={`stream-${record.id}`}>
      <header>
        <strong>{record.label}</strong> <span class="muted">started {clock(record.startedAt)}</span>
        {record.reconnectOf ? <span class="badge warn">reconnect of stream {record.reconnectOf}</span> : null}
        <span class={`badge ${record.status === 'broken' ? 'bad' : ''}`} data-testid="stream-status">
          {record.status}
        </span>
        {record.endedAt ? <span class="muted"> ended {clock(record.endedAt)}</span> : null}
        {record.status === 'open' ? (
          <button type="button" onClick={() => stopStream(record.id)}>
            Stop reading
          </button>
        ) : null}
        {record.status === 'broken' && record.taskId ? (
          <button
            type="button"
            onClick={() =>
              void runStream(
                'SubscribeToTask',
                { id: record.taskId },
                {
                  label: `SubscribeToTask ${record.taskId}`,
                  taskId: record.taskId as string,
                  reconnectOf: record.id,
                },
              )
            }
          >
            Resubscribe
          </button>
        ) : null}
        <button type="button" class="link" onClick={() => openRaw(record.wireSeq)}>
          raw
        </button>
      </header>
      {record.error ? (
        <p class="notice error" role="alert">
          {record.error}
        </p>
      ) : null}
      {record.reconnectOf ? <Gap record={record} /> : null}
      <table class="grid events">
        <thead>
          <tr>
            <th>#</th>
            <th>time</th>
            <th>kind</th>
            <th>state</th>
            <th>what</th>
            <th>raw</th>
          </tr>
        </thead>
        <tbody>
          {record.items.map((item) => (
            <tr key={item.index} data-kind={item.kind}>
              <td>{item.index}</td>
              <td class="mono">{clock(item.at)}</td>
              <td>{item.kind}</td>
              <td>{stateLabel(item.state)}</td>
              <td>{summary(item)}</td>
              <td>
                <button
                  type="button"
                  class="link"
                  onClick={() => openRaw(item.wireSeq ?? record.wireSeq, item.index)}
                >
                  raw
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {record.dropped ? <p class="muted">{record.dropped} more events not kept.</p> : null}
    </section>
  );
}

export function TimelineView() {
  const s = useStore();
  if (s.streams.length === 0)
    return <p class="muted">No stream yet: send a streaming message, or subscribe to a task in Tasks.</p>;
  return (
    <div class="timeline">
      {[...s.streams].reverse().map((r) => (
        <Stream key={r.id} record={r} />
      ))}
    </div>
  );
}
