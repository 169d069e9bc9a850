/** docs/observability.md lists exactly the metrics the code creates, with their Prometheus names. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);
const code = readFileSync(new URL('src/server/observability/metrics.ts', root), 'utf8');
const doc = readFileSync(new URL('docs/observability.md', root), 'utf8');

/** Every instrument the code makes: its name, kind and unit. */
function instruments(): { name: string; kind: string; unit: string | undefined }[] {
  const found = [
    ...code.matchAll(/create(Counter|Histogram|UpDownCounter)\('([\w.]+)'(?:,\s*\{([^}]*)\})?/g),
  ];
  return found.map(([, kind, name, options]) => ({
    name: name!,
    kind: kind!,
    unit: /unit: '(\w+)'/.exec(options ?? '')?.[1],
  }));
}

/** What the OpenTelemetry Prometheus exporter calls a metric's main series. */
function prometheusName(metric: { name: string; kind: string; unit: string | undefined }): string {
  const base = metric.name.replaceAll('.', '_') + (metric.unit === 's' ? '_seconds' : '');
  if (metric.kind === 'Counter') return `${base}_total`;
  if (metric.kind === 'Histogram') return `${base}_bucket`;
  return base;
}

test('every metric in the code is in the docs tables, and no other', () => {
  const made = instruments();
  assert.ok(made.length >= 10, `found only ${made.length} instruments: did metrics.ts change shape?`);
  const documented = new Set([...doc.matchAll(/^\| `(a2a\.[\w.]+)` \|/gm)].map((m) => m[1]));
  assert.deepEqual([...documented].sort(), made.map((m) => m.name).sort());
  for (const metric of made) {
    const row = new RegExp(
      `^\\| \`${metric.name.replaceAll('.', '\\.')}\` \\| \`${prometheusName(metric)}\` \\|`,
      'm',
    );
    assert.match(doc, row, `the Grafana table names ${metric.name} as ${prometheusName(metric)}`);
  }
});
