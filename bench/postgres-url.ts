/**
 * The PostgreSQL server of the PostgreSQL scenarios: A2A_BENCH_POSTGRES_URL, else the
 * throwaway cluster scripts/bench.sh starts (A2A_TEST_POSTGRES_URL, as scripts/services.sh
 * sets it). Each scenario works in a schema of its own.
 */

/** The server's URL; throws with the reason when there is none. */
export function benchPostgresUrl(): string {
  const url = process.env.A2A_BENCH_POSTGRES_URL || process.env.A2A_TEST_POSTGRES_URL;
  if (url) return url;
  throw new Error(
    `no PostgreSQL: ${process.env.A2A_TEST_POSTGRES_ERROR ?? 'set A2A_BENCH_POSTGRES_URL (npm run bench starts a throwaway cluster)'}`,
  );
}

/** `base` with its tables in a fresh schema. */
export function withFreshSchema(base: string, prefix = 'bench'): { url: string; schema: string } {
  const schema = `${prefix}_${process.pid}_${Date.now()}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema };
}
