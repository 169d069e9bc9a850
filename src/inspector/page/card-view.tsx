/** The Card view: every field, validation problems by path, signature status, the extended card. */
import type { ComponentChildren } from 'preact';
import type { AgentCard } from '../../model/schema.js';
import { call } from './actions.js';
import { JsonView } from './json-view.js';
import { store, useStore } from './store.js';

function Field({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Interfaces({ card, inUse }: { card: AgentCard; inUse: { url?: string; version?: string } }) {
  return (
    <table class="grid">
      <caption>Interfaces</caption>
      <thead>
        <tr>
          <th>binding</th>
          <th>url</th>
          <th>protocol version</th>
          <th>tenant</th>
        </tr>
      </thead>
      <tbody>
        {card.supportedInterfaces.map((i) => {
          const current = i.url === inUse.url && i.protocolVersion === inUse.version;
          return (
            <tr key={i.url + i.protocolBinding + i.protocolVersion} class={current ? 'current' : ''}>
              <td>
                {i.protocolBinding}
                {current ? ' (in use)' : ''}
              </td>
              <td class="mono">{i.url}</td>
              <td>{i.protocolVersion}</td>
              <td>{i.tenant ?? ''}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

async function extendedCard(): Promise<void> {
  const reply = await call<AgentCard>('GetExtendedAgentCard', {});
  if (reply.error) store.notify('error', `extended card: ${reply.error.message}`);
  else
    store.update((s) =>
      s.connection?.card
        ? { connection: { ...s.connection, card: { ...s.connection.card, card: reply.result } } }
        : {},
    );
}

export function CardView() {
  const s = useStore();
  const report = s.connection?.card;
  if (!s.connection) return <p class="muted">Not connected. Give the agent's URL in Connection.</p>;
  if (!report)
    return (
      <p class="notice error" role="alert">
        No card: {s.connection.error}
      </p>
    );
  const card = report.card;
  const sig = report.signature;
  return (
    <section class="card-view" aria-label="Agent card">
      {s.connection.error ? (
        <p class="notice error" role="alert" data-testid="connect-error">
          {s.connection.error}
        </p>
      ) : null}
      <div class="badges">
        {report.isV03 ? (
          <span class="badge warn">A2A v0.3 card (shown in its v1.0 form)</span>
        ) : (
          <span class="badge">A2A v1.0 card</span>
        )}
        <span class={`badge sig-${sig.status}`} title={sig.message} data-testid="signature">
          signature: {sig.status}
        </span>
        <span class={`badge ${report.problems.length ? 'bad' : 'good'}`}>
          {report.problems.length
            ? `${report.problems.length} validation problem(s)`
            : 'valid against the A2A model'}
        </span>
      </div>
      <p class="muted">{sig.message}</p>
      {report.notes.map((n) => (
        <p class="muted" key={n}>
          {n}
        </p>
      ))}
      {report.problems.length ? (
        <table class="grid problems" data-testid="card-problems">
          <caption>Validation problems</caption>
          <thead>
            <tr>
              <th>field</th>
              <th>problem</th>
            </tr>
          </thead>
          <tbody>
            {report.problems.map((p, i) => (
              <tr key={i}>
                <td class="mono">{p.path}</td>
                <td>{p.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {card ? (
        <>
          <h2>{card.name}</h2>
          <dl class="fields">
            <Field name="description">{card.description}</Field>
            <Field name="version">{card.version}</Field>
            <Field name="provider">
              {card.provider ? `${card.provider.organization} (${card.provider.url})` : '—'}
            </Field>
            <Field name="documentation">{card.documentationUrl ?? '—'}</Field>
            <Field name="icon">{card.iconUrl ?? '—'}</Field>
            <Field name="input modes">{card.defaultInputModes.join(', ') || '—'}</Field>
            <Field name="output modes">{card.defaultOutputModes.join(', ') || '—'}</Field>
            <Field name="capabilities">
              streaming: {String(card.capabilities.streaming ?? false)} · push notifications:{' '}
              {String(card.capabilities.pushNotifications ?? false)} · extended card:{' '}
              {String(card.capabilities.extendedAgentCard ?? false)}
              {(card.capabilities.extensions ?? []).map((x) => (
                <div key={x.uri} class="mono">
                  extension {x.uri}
                  {x.required ? ' (required)' : ''}
                </div>
              ))}
            </Field>
            <Field name="security schemes">
              {Object.keys(card.securitySchemes ?? {}).length ? (
                <JsonView value={card.securitySchemes} open={2} />
              ) : (
                'none'
              )}
            </Field>
            <Field name="security requirements">
              {(card.securityRequirements ?? []).length ? (
                <JsonView value={card.securityRequirements} open={2} />
              ) : (
                'none'
              )}
            </Field>
          </dl>
          {card.capabilities.extendedAgentCard ? (
            <button type="button" onClick={() => void extendedCard()}>
              Get the extended card (with the credentials set)
            </button>
          ) : null}
          <Interfaces
            card={card}
            inUse={{
              url: s.connection.interfaceUrl,
              version: s.connection.interfaceVersion,
            }}
          />
          <h3>Skills ({card.skills.length})</h3>
          <ul class="skills">
            {card.skills.map((k) => (
              <li key={k.id}>
                <strong>{k.name}</strong> <span class="mono muted">{k.id}</span>
                <div>{k.description}</div>
                <div class="muted">tags: {k.tags.join(', ')}</div>
                {(k.examples ?? []).length ? (
                  <div class="muted">examples: {(k.examples ?? []).join(' · ')}</div>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>Raw card ({report.url})</h3>
      <JsonView value={report.raw} open={1} />
    </section>
  );
}
