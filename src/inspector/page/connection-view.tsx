/**
 * Connection settings: the agent, binding, tenant, credentials (and where else they may go),
 * headers, extensions, version.
 */
import { useState } from 'preact/hooks';
import type { AuthSettings, ConnectSettings } from '../api-types.js';
import { connect } from './actions.js';
import { store, useStore } from './store.js';

function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return headers;
}

export function ConnectionView() {
  const s = useStore();
  const initial = s.settings;
  const [url, setUrl] = useState(initial.url);
  const [binding, setBinding] = useState(initial.binding ?? '');
  const [tenant, setTenant] = useState(initial.tenant ?? '');
  const [authKind, setAuthKind] = useState<AuthSettings['kind']>(initial.auth?.kind ?? 'none');
  const [secret, setSecret] = useState('');
  const [clientId, setClientId] = useState('');
  const [tokenUrl, setTokenUrl] = useState('');
  const [headers, setHeaders] = useState(
    Object.entries(initial.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
  const [extensions, setExtensions] = useState((initial.extensions ?? []).join('\n'));
  const [version, setVersion] = useState(initial.a2aVersion ?? '1.0');
  const [jwks, setJwks] = useState(initial.trustedJwks ?? '');
  const [origins, setOrigins] = useState((initial.credentialOrigins ?? []).join('\n'));
  const schemes = Object.keys(s.connection?.card?.card?.securitySchemes ?? {});

  const submit = (e: Event) => {
    e.preventDefault();
    const auth: AuthSettings =
      authKind === 'bearer'
        ? { kind: 'bearer', token: secret }
        : authKind === 'apiKey'
          ? { kind: 'apiKey', key: secret }
          : authKind === 'oauth2'
            ? { kind: 'oauth2', clientId, clientSecret: secret, ...(tokenUrl ? { tokenUrl } : {}) }
            : { kind: 'none' };
    const settings: ConnectSettings = {
      url,
      ...(binding ? { binding } : {}),
      ...(tenant ? { tenant } : {}),
      auth,
      headers: parseHeaders(headers),
      extensions: extensions.split(/[\s,]+/).filter(Boolean),
      a2aVersion: version || '1.0',
      ...(jwks ? { trustedJwks: jwks } : {}),
      credentialOrigins: origins.split(/[\s,]+/).filter(Boolean),
    };
    void connect(settings);
  };

  return (
    <form class="settings" onSubmit={submit} aria-label="Connection settings">
      <label>
        Agent URL (base URL or card URL)
        <input
          name="url"
          type="text"
          required
          placeholder="http://127.0.0.1:41241"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <div class="row">
        <label>
          Binding
          <select name="binding" value={binding} onChange={(e) => setBinding(e.currentTarget.value)}>
            <option value="">as the card prefers</option>
            <option value="JSONRPC">JSON-RPC</option>
            <option value="HTTP+JSON">HTTP+JSON (REST)</option>
            <option value="GRPC">gRPC (through the inspector's backend)</option>
          </select>
        </label>
        <label>
          Tenant
          <input name="tenant" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} />
        </label>
        <label>
          A2A-Version
          <input name="version" value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
        </label>
      </div>
      <fieldset>
        <legend>Credentials</legend>
        <div class="row">
          <label>
            Kind
            <select
              name="auth"
              value={authKind}
              onChange={(e) => setAuthKind(e.currentTarget.value as AuthSettings['kind'])}
            >
              <option value="none">none</option>
              <option value="bearer">bearer token</option>
              <option value="apiKey">API key{schemes.length ? ' (where the card says)' : ''}</option>
              <option value="oauth2">OAuth2 client credentials</option>
            </select>
          </label>
          {authKind === 'oauth2' ? (
            <>
              <label>
                Client id
                <input name="clientId" value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
              </label>
              <label>
                Token URL (default: the card's)
                <input name="tokenUrl" value={tokenUrl} onInput={(e) => setTokenUrl(e.currentTarget.value)} />
              </label>
            </>
          ) : null}
          {authKind !== 'none' ? (
            <label>
              {authKind === 'bearer' ? 'Token' : authKind === 'apiKey' ? 'Key' : 'Client secret'}
              <input
                name="secret"
                type="password"
                value={secret}
                onInput={(e) => setSecret(e.currentTarget.value)}
              />
            </label>
          ) : null}
          {authKind !== 'none' ? (
            <label>
              Also send them to (origins, one a line; the agent URL's is implied)
              <textarea
                name="credentialOrigins"
                rows={2}
                placeholder="https://api.example.com"
                value={origins}
                onInput={(e) => setOrigins(e.currentTarget.value)}
              />
            </label>
          ) : null}
        </div>
      </fieldset>
      <div class="row">
        <label>
          Custom headers (one "Name: value" a line)
          <textarea
            name="headers"
            rows={3}
            value={headers}
            onInput={(e) => setHeaders(e.currentTarget.value)}
          />
        </label>
        <label>
          Extensions to request (URIs)
          <textarea
            name="extensions"
            rows={3}
            value={extensions}
            onInput={(e) => setExtensions(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Trusted JWKS URL (to verify the card's signature)
        <input name="jwks" value={jwks} onInput={(e) => setJwks(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={s.connecting}>
          {s.connecting ? 'Connecting…' : 'Connect'}
        </button>
        {s.connection?.binding ? (
          <span class="muted">
            in use: {s.connection.binding} at {s.connection.interfaceUrl}
          </span>
        ) : null}
        {s.connection ? (
          <button type="button" onClick={() => store.update(() => ({ tab: 'card' }))}>
            Show the card
          </button>
        ) : null}
      </div>
    </form>
  );
}
