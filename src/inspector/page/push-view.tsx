/** Push: point a task at the built-in receiver; each delivery with headers, signature check, body. */
import { useState } from 'preact/hooks';
import { clock, prettyBody } from './format.js';
import { pushToInspector } from './tasks-view.js';
import { useStore } from './store.js';

export function PushView() {
  const s = useStore();
  const [taskId, setTaskId] = useState(s.conversation.taskId ?? '');
  const canPush = s.connection?.card?.card?.capabilities.pushNotifications === true;
  return (
    <section class="push" aria-label="Push notifications">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (taskId) void pushToInspector(taskId);
        }}
      >
        <label>
          Task id
          <input name="taskId" value={taskId} onInput={(e) => setTaskId(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={!s.connection?.binding}>
          Point its push notifications at the inspector
        </button>
      </form>
      {s.connection && !canPush ? <p class="muted">The card does not declare push notifications.</p> : null}
      <h3>Deliveries ({s.pushes.length})</h3>
      {s.pushes.length === 0 ? <p class="muted">None yet.</p> : null}
      <ol class="deliveries">
        {[...s.pushes].reverse().map((d) => (
          <li key={d.seq} class="delivery" data-testid="push-delivery">
            <header>
              <span class="mono">{clock(d.at)}</span> task <span class="mono">{d.taskId ?? '?'}</span>{' '}
              <span class={`badge ${d.token === 'ok' ? 'good' : 'bad'}`}>token {d.token}</span>{' '}
              <span
                class={`badge sig-${d.signature.status}`}
                title={d.signature.message}
                data-testid="push-signature"
              >
                signature {d.signature.status}
              </span>{' '}
              <span class="badge">answered {d.answered}</span>
              {d.problems.length ? <span class="badge bad">⚠ {d.problems.length} problem(s)</span> : null}
            </header>
            <p class="muted">{d.signature.message}</p>
            {d.problems.map((p, i) => (
              <p key={i} class="notice warn">
                {p.path}: {p.message}
              </p>
            ))}
            <details>
              <summary>Headers</summary>
              <table class="grid headers">
                <tbody>
                  {Object.entries(d.headers).map(([k, v]) => (
                    <tr key={k}>
                      <th>{k}</th>
                      <td class="mono">{v}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
            <pre class="body">{prettyBody(d.body)}</pre>
          </li>
        ))}
      </ol>
    </section>
  );
}
