/**
 * A TaskStore decorator that makes each store call a CLIENT child span (`a2a.store.<call>`,
 * `db.operation.name`) of the active span. Calls with no recording span around them go
 * straight to the store.
 */
import { SpanKind, context, trace, type Span, type Tracer } from '@opentelemetry/api';
import type {
  IdempotencyKey,
  IdempotencyRecord,
  InterruptedTaskRef,
  SaveChange,
  StoredTask,
  TaskPage,
  TaskQuery,
  TaskScope,
  TaskStore,
} from '../../core/stores/task-store.js';
import { a2aTracer, failSpan, liveness } from './tracing.js';

/** `store` with a span around every call made within a recording span. */
export function traceTaskStore(store: TaskStore, given?: Tracer): TaskStore {
  const tracer = given ?? a2aTracer();
  const live = liveness(given);
  const span = (name: string, taskId?: string): Span | undefined => {
    if (!live()) return undefined;
    const active = context.active();
    if (!trace.getSpan(active)?.isRecording()) return undefined;
    return tracer.startSpan(
      `a2a.store.${name}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.operation.name': name, ...(taskId ? { 'a2a.task.id': taskId } : {}) },
      },
      active,
    );
  };
  const run = <T>(s: Span | undefined, work: () => Promise<T>): Promise<T> => {
    if (!s) return work();
    return work().then(
      (value) => {
        s.end();
        return value;
      },
      (error: unknown) => {
        failSpan(s, error);
        s.end();
        throw error;
      },
    );
  };
  // Without a span the store is called directly (no closure per call: these run several
  // times per request).
  const traced: TaskStore = {
    get: (scope: TaskScope, id: string): Promise<StoredTask | undefined> => {
      const s = span('get', id);
      return s ? run(s, () => store.get(scope, id)) : store.get(scope, id);
    },
    save: (record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> => {
      const s = span('save', record.task.id);
      return s
        ? run(s, () => store.save(record, expectedVersion, change))
        : store.save(record, expectedVersion, change);
    },
    list: (query: TaskQuery): Promise<TaskPage> => run(span('list'), () => store.list(query)),
    claimIdempotencyKey: (
      key: IdempotencyKey,
      record: IdempotencyRecord,
    ): Promise<IdempotencyRecord | undefined> => {
      const s = span('claimIdempotencyKey');
      return s
        ? run(s, () => store.claimIdempotencyKey(key, record))
        : store.claimIdempotencyKey(key, record);
    },
    setIdempotencyRecord: (key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> => {
      const s = span('setIdempotencyRecord');
      return s
        ? run(s, () => store.setIdempotencyRecord(key, record))
        : store.setIdempotencyRecord(key, record);
    },
  };
  if (store.listInterrupted) {
    const listInterrupted = store.listInterrupted.bind(store);
    traced.listInterrupted = (): Promise<InterruptedTaskRef[]> =>
      run(span('listInterrupted'), listInterrupted);
  }
  if (store.purgeTerminalBefore) {
    const purge = store.purgeTerminalBefore.bind(store);
    traced.purgeTerminalBefore = (cutoffMs: number): Promise<number> =>
      run(span('purgeTerminalBefore'), () => purge(cutoffMs));
  }
  // Every other member (close, secrets, execution leases, a custom store's extras) passes
  // through bound to the store, so the wrapper never hides a capability.
  const target = traced as unknown as Record<string, unknown>;
  for (
    let proto: object | null = store;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name in target) continue;
      const value = (store as unknown as Record<string, unknown>)[name];
      if (typeof value === 'function') target[name] = (value as (...a: unknown[]) => unknown).bind(store);
    }
  }
  return traced;
}
