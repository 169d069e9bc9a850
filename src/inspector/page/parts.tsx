/** Message and artifact parts: text as text, data as folded JSON, files downloadable. */
import { useMemo, useState } from 'preact/hooks';
import type { Artifact, Part } from '../../model/schema.js';
import { JsonView } from './json-view.js';

/** Text longer than this is shown cut, with the rest one click away (a huge artifact never freezes the tab). */
const SHOWN_TEXT = 20_000;

function LongText({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  if (text.length <= SHOWN_TEXT || all) return <pre class="text">{text}</pre>;
  return (
    <div>
      <pre class="text">{text.slice(0, SHOWN_TEXT)}</pre>
      <p class="notice info">
        Showing {SHOWN_TEXT.toLocaleString()} of {text.length.toLocaleString()} characters.{' '}
        <button type="button" class="link" onClick={() => setAll(true)}>
          Show all
        </button>
      </p>
    </div>
  );
}

/**
 * The agent's file URL as a link target, only when it is http(s): a `javascript:`, `data:` or
 * any other scheme is the agent's to choose and must not run in the inspector's origin when
 * clicked (issue 27, finding 12). Parsed, so spaces, case and control characters cannot hide
 * the scheme.
 */
export function safeLinkUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function FilePart({ part }: { part: Part & { raw?: string; url?: string } }) {
  const name = part.filename ?? 'file';
  const href = useMemo(() => {
    if (typeof part.raw !== 'string') return undefined;
    try {
      const bin = atob(part.raw.replace(/-/g, '+').replace(/_/g, '/'));
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      // Always octet-stream: a blob: URL of the agent's text/html opened in a tab would run in
      // the inspector's origin; a download is all this link is for.
      return URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    } catch {
      return undefined;
    }
  }, [part.raw]);
  if (typeof part.url === 'string') {
    const link = safeLinkUrl(part.url);
    return (
      <div class="file" data-testid="file-part">
        file{' '}
        {link ? (
          <a href={link} rel="noopener noreferrer" target="_blank">
            {name}
          </a>
        ) : (
          <span>
            {name} <span class="muted">(not a link: only http and https URLs are)</span>{' '}
            <code class="mono">{part.url.slice(0, 200)}</code>
          </span>
        )}{' '}
        <span class="muted">{part.mediaType ?? ''} (by URL)</span>
      </div>
    );
  }
  return (
    <div class="file">
      file{' '}
      {href ? (
        <a href={href} download={name}>
          {name}
        </a>
      ) : (
        <span>{name} (not valid base64)</span>
      )}{' '}
      <span class="muted">
        {part.mediaType ?? ''} · {Math.floor(((part.raw ?? '').length * 3) / 4).toLocaleString()} bytes
      </span>
    </div>
  );
}

/** One part. */
export function PartView({ part }: { part: Part }) {
  const p = part as Part & { text?: string; data?: unknown; raw?: string; url?: string };
  if (typeof p.text === 'string') return <LongText text={p.text} />;
  if ('data' in p && p.data !== undefined) return <JsonView value={p.data} open={1} />;
  if (typeof p.raw === 'string' || typeof p.url === 'string') return <FilePart part={p} />;
  return <JsonView value={part} />;
}

/** Consecutive text parts joined (streamed chunks read as one text), others as they are. */
function merged(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out.at(-1) as (Part & { text?: string }) | undefined;
    const p = part as Part & { text?: string };
    if (last && typeof last.text === 'string' && typeof p.text === 'string' && Object.keys(p).length === 1)
      out[out.length - 1] = { text: last.text + p.text } as Part;
    else out.push(part);
  }
  return out;
}

/** An artifact as it stands. */
export function ArtifactView({ artifact }: { artifact: Artifact }) {
  return (
    <article class="artifact" data-testid={`artifact-${artifact.artifactId}`}>
      <h4>
        {artifact.name ?? artifact.artifactId} <span class="mono muted">{artifact.artifactId}</span>
      </h4>
      {artifact.description ? <p class="muted">{artifact.description}</p> : null}
      {merged(artifact.parts).map((part, i) => (
        <PartView key={i} part={part} />
      ))}
    </article>
  );
}
