/** JSON shown folded: objects and arrays open on click (or Enter), long strings cut. */
import { useState } from 'preact/hooks';

const MAX_STRING = 2000;
const MAX_ITEMS = 200;

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    const cut = value.length > MAX_STRING;
    return (
      <span class="j-str">
        "{cut ? value.slice(0, MAX_STRING) : value}"{cut ? <em> …({value.length} chars)</em> : null}
      </span>
    );
  }
  return <span class={`j-${typeof value}`}>{value === null ? 'null' : String(value)}</span>;
}

/** A folded JSON tree; `open` levels are expanded at first. */
export function JsonView({ value, open = 1, label }: { value: unknown; open?: number; label?: string }) {
  const [expanded, setExpanded] = useState(open > 0);
  if (value === null || typeof value !== 'object') {
    return (
      <div class="j-row">
        {label !== undefined ? <span class="j-key">{label}: </span> : null}
        <Leaf value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return (
    <div class="j-node">
      <button type="button" class="j-toggle" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
        {expanded ? '▾' : '▸'} {label !== undefined ? <span class="j-key">{label}: </span> : null}
        {brackets[0]}
        {expanded ? '' : ` ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'} ${brackets[1]}`}
      </button>
      {expanded ? (
        <div class="j-children">
          {entries.slice(0, MAX_ITEMS).map(([k, v]) => (
            <JsonView key={k} value={v} open={open - 1} label={k} />
          ))}
          {entries.length > MAX_ITEMS ? <div class="j-more">… {entries.length - MAX_ITEMS} more</div> : null}
          <div>{brackets[1]}</div>
        </div>
      ) : null}
    </div>
  );
}
