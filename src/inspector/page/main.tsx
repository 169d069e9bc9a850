/** The inspector page: a header with the agent's address, tabs for each view, a notice line. */
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { AGENT_PARAM, TOKEN } from './api.js';
import { connect, followFeed } from './actions.js';
import { store, useStore, type TabId } from './store.js';
import { CardView } from './card-view.js';
import { ConnectionView } from './connection-view.js';
import { ConversationView } from './conversation-view.js';
import { TimelineView } from './timeline-view.js';
import { TasksView } from './tasks-view.js';
import { PushView } from './push-view.js';
import { WireView } from './wire-view.js';

const TABS: { id: TabId; label: string }[] = [
  { id: 'connection', label: 'Connection' },
  { id: 'card', label: 'Card' },
  { id: 'conversation', label: 'Conversation' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'tasks', label: 'Tasks' },
  { id: 'push', label: 'Push' },
  { id: 'wire', label: 'Raw wire' },
];

function Tabs({ tab }: { tab: TabId }) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: KeyboardEvent, i: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (i + step + TABS.length) % TABS.length;
    store.update(() => ({ tab: TABS[next]?.id ?? 'card' }));
    refs.current[next]?.focus();
  };
  return (
    <nav class="tabs" role="tablist" aria-label="Views">
      {TABS.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={tab === t.id}
          aria-controls="panel"
          tabIndex={tab === t.id ? 0 : -1}
          onClick={() => store.update(() => ({ tab: t.id }))}
          onKeyDown={(e) => onKey(e, i)}
        >
          {t.label}
        </button>
      ))}
    </nav>
  );
}

function Panel({ tab }: { tab: TabId }) {
  switch (tab) {
    case 'card':
      return <CardView />;
    case 'conversation':
      return <ConversationView />;
    case 'timeline':
      return <TimelineView />;
    case 'tasks':
      return <TasksView />;
    case 'push':
      return <PushView />;
    case 'wire':
      return <WireView />;
    default:
      return <ConnectionView />;
  }
}

function App() {
  const s = useStore();
  useEffect(() => {
    void followFeed();
    if (AGENT_PARAM) void connect({ ...store.state.settings, url: AGENT_PARAM });
  }, []);
  const c = s.connection;
  return (
    <div class="app">
      <header class="top">
        <h1>a2a inspector</h1>
        <div class="agent-line" data-testid="agent-line">
          {s.connecting
            ? `connecting to ${s.settings.url}…`
            : c?.card?.card
              ? `${c.card.card.name} · ${c.binding ?? 'no usable interface'}${c.interfaceUrl ? ` · ${c.interfaceUrl}` : ''}`
              : 'not connected'}
        </div>
      </header>
      {!TOKEN ? (
        <p class="notice error" role="alert">
          This address has no token: open the one `a2a inspect` printed.
        </p>
      ) : null}
      {s.feedError ? (
        <p class="notice error" role="alert">
          {s.feedError}
        </p>
      ) : null}
      {s.notice ? (
        <p
          class={`notice ${s.notice.kind}`}
          role={s.notice.kind === 'error' ? 'alert' : 'status'}
          data-testid="notice"
        >
          <span>{s.notice.text}</span>
          <button
            type="button"
            class="link"
            onClick={() => store.update(() => ({ notice: undefined }))}
            aria-label="Dismiss"
          >
            ✕
          </button>
        </p>
      ) : null}
      <Tabs tab={s.tab} />
      <main>
        <div id="panel" role="tabpanel" aria-labelledby={`tab-${s.tab}`}>
          <Panel tab={s.tab} />
        </div>
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
