/**
 * The page's state in one store: the connection, the conversation, every stream of the
 * timeline, the wire summaries and the push deliveries. Every list is bounded. Views re-render
 * at most once per animation frame, so a fast stream never freezes the tab.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Artifact, Part } from '../../model/schema.js';
import type { ConnectResult, ConnectSettings, PushDelivery, StreamItem, WireSummary } from '../api-types.js';

export type TabId = 'card' | 'connection' | 'conversation' | 'timeline' | 'tasks' | 'push' | 'wire';

/** One stream or subscription as the timeline shows it. */
export interface StreamRecord {
  id: number;
  label: string;
  taskId?: string;
  startedAt: number;
  endedAt?: number;
  status: 'open' | 'ended' | 'broken' | 'stopped';
  error?: string;
  items: StreamItem[];
  /** Events not kept past the cap. */
  dropped: number;
  wireSeq?: number;
  /** Set when this stream resubscribes after another one broke. */
  reconnectOf?: number;
}

/** One line of the conversation. */
export interface Turn {
  at: number;
  role: 'user' | 'agent' | 'status' | 'error';
  text?: string;
  parts?: Part[];
  state?: string;
  taskId?: string;
}

export interface Conversation {
  contextId?: string;
  taskId?: string;
  taskState?: string;
  /** The question of an INPUT_REQUIRED / AUTH_REQUIRED task, shown as a prompt. */
  prompt?: { state: string; text: string };
  turns: Turn[];
  /** Artifacts of the current task as they grow, by id. */
  artifacts: Record<string, Artifact>;
  busy: boolean;
}

export interface AppState {
  settings: ConnectSettings;
  connecting: boolean;
  connection?: ConnectResult;
  tab: TabId;
  conversation: Conversation;
  streams: StreamRecord[];
  wire: WireSummary[];
  selectedWire?: { seq: number; event?: number };
  pushes: PushDelivery[];
  notice?: { kind: 'error' | 'info'; text: string };
  feedError?: string;
  /** A task the Tasks view should open. */
  openTask?: string;
}

export const LIMITS = { streams: 50, itemsPerStream: 5000, wire: 500, pushes: 300, turns: 500 };

function emptyConversation(): Conversation {
  return { turns: [], artifacts: {}, busy: false };
}

class Store {
  state: AppState = {
    settings: { url: '', a2aVersion: '1.0' },
    connecting: false,
    tab: 'connection',
    conversation: emptyConversation(),
    streams: [],
    wire: [],
    pushes: [],
  };
  private listeners = new Set<() => void>();
  private scheduled = false;
  private nextStream = 1;

  update(change: (s: AppState) => Partial<AppState>): void {
    this.state = { ...this.state, ...change(this.state) };
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      for (const l of this.listeners) l();
    });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resetConversation(): void {
    this.update(() => ({ conversation: emptyConversation() }));
  }

  conversation(change: (c: Conversation) => Partial<Conversation>): void {
    this.update((s) => {
      const next = { ...s.conversation, ...change(s.conversation) };
      if (next.turns.length > LIMITS.turns) next.turns = next.turns.slice(-LIMITS.turns);
      return { conversation: next };
    });
  }

  /** Starts a timeline stream; returns its id. */
  openStream(label: string, taskId?: string, reconnectOf?: number): number {
    const id = this.nextStream++;
    const record: StreamRecord = {
      id,
      label,
      ...(taskId ? { taskId } : {}),
      startedAt: Date.now(),
      status: 'open',
      items: [],
      dropped: 0,
      ...(reconnectOf ? { reconnectOf } : {}),
    };
    this.update((s) => ({ streams: [...s.streams, record].slice(-LIMITS.streams) }));
    return id;
  }

  stream(id: number, change: (r: StreamRecord) => Partial<StreamRecord>): void {
    this.update((s) => ({ streams: s.streams.map((r) => (r.id === id ? { ...r, ...change(r) } : r)) }));
  }

  addItem(id: number, item: StreamItem): void {
    this.stream(id, (r) =>
      r.items.length >= LIMITS.itemsPerStream
        ? { dropped: r.dropped + 1 }
        : { items: [...r.items, item], ...(item.wireSeq ? { wireSeq: item.wireSeq } : {}) },
    );
  }

  wireSummary(w: WireSummary): void {
    this.update((s) => {
      const i = s.wire.findIndex((x) => x.seq === w.seq);
      const wire = i >= 0 ? s.wire.map((x) => (x.seq === w.seq ? w : x)) : [...s.wire, w].slice(-LIMITS.wire);
      return { wire };
    });
  }

  push(p: PushDelivery): void {
    this.update((s) =>
      s.pushes.some((x) => x.seq === p.seq) ? {} : { pushes: [...s.pushes, p].slice(-LIMITS.pushes) },
    );
  }

  notify(kind: 'error' | 'info', text: string): void {
    this.update(() => ({ notice: { kind, text } }));
  }
}

/** The page's one store. */
export const store = new Store();

/** The store's state, re-rendering the caller when it changes. */
export function useStore(): AppState {
  const [, setTick] = useState(0);
  useEffect(() => store.subscribe(() => setTick((t) => t + 1)), []);
  return store.state;
}
