/**
 * Raw wire: every exchange with headers and bodies (and each SSE event or gRPC message), the
 * spec problems of a response with the rule broken, and copy as curl or as an `a2a` command.
 */
import { useEffect, useState } from 'preact/hooks';
import type { WireExchange } from '../api-types.js';
import { get } from './api.js';
import { clock, prettyBody } from './format.js';
import { curlOf, a2aCommandOf } from './commands.js';
import { store, useStore } from './store.js';

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <table class="grid headers">
      <tbody>
        {Object.entries(headers).map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td class="mono">{/^(authorization|x-api-key)$/i.test(k) ? `${v.slice(0, 12)}…` : v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Copy({ label, text, testid }: { label: string; text: string; testid: string }) {
  const [done, setDone] = useState('');
  return (
    <button
      type="button"
      data-testid={testid}
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setDone('copied'),
          () => setDone('the browser refused the clipboard: select the text below'),
        )
      }
    >
      {label}
      {done ? ` (${done})` : ''}
    </button>
  );
}

function Detail({ seq, event }: { seq: number; event?: number }) {
  const s = useStore();
  const summary = s.wire.find((w) => w.seq === seq);
  const [exchange, setExchange] = useState<WireExchange | undefined>(undefined);
  const [error, setError] = useState('');
  useEffect(() => {
    get<WireExchange>(`/api/wire/${seq}`).then(
      (e) => (setExchange(e), setError('')),
      (e: Error) => setError(e.message),
    );
  }, [seq, summary?.events, summary?.endedAt]);
  useEffect(() => {
    if (event !== undefined)
      document.getElementById(`wire-event-${event}`)?.scrollIntoView({ block: 'center' });
  }, [exchange, event]);
  if (error)
    return (
      <p class="notice error" role="alert">
        {error}
      </p>
    );
  if (!exchange) return <p class="muted">loading…</p>;
  const grpcAddress = s.connection?.card?.card?.supportedInterfaces.find(
    (i) => i.protocolBinding === 'GRPC',
  )?.url;
  const curl = curlOf(exchange, grpcAddress);
  const a2a = a2aCommandOf(exchange, s.settings.url);
  return (
    <section class="wire-detail" aria-label={`Exchange ${seq}`} data-testid="wire-detail">
      <h3>
        #{exchange.seq} {exchange.binding} {exchange.method ?? ''}
      </h3>
      {exchange.problems.length ? (
        <div class="notice warn" role="alert" data-testid="wire-problems">
          <strong>⚠ This response breaks the spec:</strong>
          <ul>
            {exchange.problems.map((p, i) => (
              <li key={i}>
                <strong>{p.rule}</strong> at <span class="mono">{p.where}</span>: {p.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {exchange.error ? (
        <p class="notice error" role="alert">
          {exchange.error}
        </p>
      ) : null}
      <h4>
        Request{' '}
        <span class="mono">
          {exchange.request.method} {exchange.request.url}
        </span>
      </h4>
      <Headers headers={exchange.request.headers} />
      <pre class="body" data-testid="wire-request-body">
        {prettyBody(exchange.request.body)}
      </pre>
      <div class="actions">
        <Copy label="Copy as curl" text={curl} testid="copy-curl" />
        {a2a ? <Copy label="Copy as a2a command" text={a2a} testid="copy-a2a" /> : null}
      </div>
      <pre class="command" data-testid="curl">
        {curl}
      </pre>
      {a2a ? <pre class="command">{a2a}</pre> : null}
      <h4>
        Response{' '}
        {exchange.response
          ? `${exchange.response.status || '(gRPC)'} · ${exchange.response.size.toLocaleString()} bytes`
          : '(none)'}
      </h4>
      {exchange.response ? (
        <>
          <Headers headers={exchange.response.headers} />
          {exchange.events.length ? (
            <ol class="wire-events">
              {exchange.events.map((e, i) => (
                <li key={i} id={`wire-event-${i + 1}`} class={event === i + 1 ? 'current' : ''}>
                  <span class="mono muted">
                    event {i + 1} · {clock(e.at)}
                  </span>
                  <pre class="body">{prettyBody(e.data)}</pre>
                </li>
              ))}
              {exchange.droppedEvents ? (
                <li class="muted">{exchange.droppedEvents} more events not kept</li>
              ) : null}
            </ol>
          ) : (
            <pre class="body" data-testid="wire-response-body">
              {prettyBody(exchange.response.body)}
            </pre>
          )}
        </>
      ) : null}
    </section>
  );
}

export function WireView() {
  const s = useStore();
  const selected = s.selectedWire;
  const list = [...s.wire].reverse();
  return (
    <div class="wire">
      <div class="wire-list" role="listbox" aria-label="Exchanges">
        {list.length === 0 ? <p class="muted">Nothing on the wire yet.</p> : null}
        {list.map((w) => (
          <button
            type="button"
            key={w.seq}
            role="option"
            aria-selected={selected?.seq === w.seq}
            class={`wire-row ${selected?.seq === w.seq ? 'current' : ''} ${w.problems ? 'flagged' : ''}`}
            data-testid="wire-row"
            onClick={() => store.update(() => ({ selectedWire: { seq: w.seq } }))}
          >
            <span class="mono">#{w.seq}</span> <span class="mono muted">{clock(w.startedAt)}</span>{' '}
            <strong>{w.binding}</strong> {w.method ?? w.httpMethod}{' '}
            <span class="muted">{w.status ?? (w.endedAt ? '' : '…')}</span>
            {w.events ? <span class="muted"> · {w.events} events</span> : null}
            {w.problems ? <span class="badge bad"> ⚠ {w.problems}</span> : null}
            {w.error ? <span class="badge bad"> error</span> : null}
          </button>
        ))}
      </div>
      <div class="wire-pane">
        {selected ? (
          <Detail seq={selected.seq} event={selected.event} />
        ) : (
          <p class="muted">Pick an exchange.</p>
        )}
      </div>
    </div>
  );
}
