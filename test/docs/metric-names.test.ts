/** docs/observability.md lists exactly the metrics the code creates, with their Prometheus names. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
const src = fileURLToPath(new URL('src/', root));
// Every source file: instruments are made where their facts are (metrics.ts, failed-auth.ts, ...).
const code = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts') && !path.includes('gen/'))
  .map((path) => readFileSync(join(src, path), 'utf8'))
  .join('\n');
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
