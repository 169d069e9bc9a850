/**
 * The Conversation view: messages with text, data and file parts on one context; streaming
 * when the card allows; INPUT_REQUIRED / AUTH_REQUIRED as a prompt answered on the same task;
 * artifacts as they grow; cancel at any time.
 */
import { useState } from 'preact/hooks';
import type { Part } from '../../model/schema.js';
import { cancelTask, sendMessage } from './actions.js';
import { clock, stateLabel } from './format.js';
import { ArtifactView, PartView } from './parts.js';
import { store, useStore } from './store.js';

/** Reads a file as base64 (the `raw` of a file part). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('cannot read the file'));
    reader.readAsDataURL(file);
  });
}

export function ConversationView() {
  const s = useStore();
  const c = s.conversation;
  const card = s.connection?.card?.card;
  const canStream = card?.capabilities.streaming === true;
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [stream, setStream] = useState(true);
  const [error, setError] = useState('');
  if (!s.connection?.binding) return <p class="muted">Connect to an agent first (Connection).</p>;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    const parts: Part[] = [];
    if (text) parts.push({ text } as Part);
    if (data.trim()) {
      try {
        parts.push({ data: JSON.parse(data) } as Part);
      } catch (err) {
        setError(`the data part is not JSON: ${(err as Error).message}`);
        return;
      }
    }
    if (file)
      parts.push({
        raw: await readBase64(file),
        filename: file.name,
        mediaType: file.type || 'application/octet-stream',
      } as Part);
    if (parts.length === 0) {
      setError('write a message, data or pick a file');
      return;
    }
    setText('');
    void sendMessage(parts, canStream && stream);
  };
  const artifacts = Object.values(c.artifacts);

  return (
    <section class="conversation" aria-label="Conversation">
      <div class="ids muted">
        context:{' '}
        <span class="mono" data-testid="context-id">
          {c.contextId ?? '(new)'}
        </span>{' '}
        · task:{' '}
        <span class="mono" data-testid="task-id">
          {c.taskId ?? '(none)'}
        </span>
        {c.taskState ? (
          <>
            {' '}
            · state: <span data-testid="task-state">{stateLabel(c.taskState)}</span>
          </>
        ) : null}{' '}
        <button type="button" class="link" onClick={() => store.resetConversation()}>
          New conversation
        </button>
      </div>
      <ol class="turns" aria-live="polite">
        {c.turns.map((t, i) => (
          <li key={i} class={`turn ${t.role}`}>
            <span class="when">{clock(t.at)}</span>
            <span class="who">{t.role === 'status' ? stateLabel(t.state) : t.role}</span>
            <div class="what">
              {t.parts ? (
                t.parts.map((p, j) => <PartView key={j} part={p} />)
              ) : t.text ? (
                <span>{t.text}</span>
              ) : null}
            </div>
          </li>
        ))}
      </ol>
      {artifacts.length ? (
        <div class="artifacts">
          <h3>Artifacts</h3>
          {artifacts.map((a) => (
            <ArtifactView key={a.artifactId} artifact={a} />
          ))}
        </div>
      ) : null}
      {c.prompt ? (
        <p class="notice prompt" role="alert" data-testid="prompt">
          <strong>The agent asks ({stateLabel(c.prompt.state)}):</strong> {c.prompt.text}
          <br />
          <span class="muted">Your next message answers on task {c.taskId}.</span>
        </p>
      ) : null}
      <form class="composer" onSubmit={(e) => void submit(e)} aria-label="Message">
        <label>
          {c.prompt ? 'Your answer' : 'Message'}
          <textarea
            name="text"
            rows={2}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void submit(e);
            }}
          />
        </label>
        <details>
          <summary>Data and file parts</summary>
          <label>
            Data part (JSON)
            <textarea name="data" rows={3} value={data} onInput={(e) => setData(e.currentTarget.value)} />
          </label>
          <label>
            File part
            <input name="file" type="file" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
          </label>
        </details>
        {error ? (
          <p class="notice error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={c.busy && !canStream}>
            Send
          </button>
          <label class="inline">
            <input
              type="checkbox"
              checked={canStream && stream}
              disabled={!canStream}
              onChange={(e) => setStream(e.currentTarget.checked)}
            />
            stream{canStream ? '' : ' (the card does not declare streaming)'}
          </label>
          {c.taskId ? (
            <button type="button" class="danger" onClick={() => void cancelTask(c.taskId as string)}>
              Cancel task
            </button>
          ) : null}
          {c.busy ? <span class="muted">waiting for the agent…</span> : null}
        </div>
      </form>
    </section>
  );
}
