/**
 * The test PostgreSQL that scripts/services.sh starts (A2A_TEST_POSTGRES_URL). Each caller
 * gets its own PostgreSQL schema, so test files running at once never see each other's rows.
 * When the server could not be started, every use fails with the reason services.sh gave:
 * tests that need PostgreSQL fail, they are never skipped.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The test server's URL; throws with the reason when there is none. */
export function postgresUrl(): string {
  const url = process.env.A2A_TEST_POSTGRES_URL;
  if (url) return url;
  const reason =
    process.env.A2A_TEST_POSTGRES_ERROR ??
    'A2A_TEST_POSTGRES_URL is not set (run the tests with `npm test` or scripts/test.sh, which start PostgreSQL)';
  throw new Error(`PostgreSQL is not available: ${reason}`);
}

/** A fresh schema name (letters, digits, _). */
export function freshSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops a schema made for a test, with everything in it (on the shared server unless `url`). */
export async function dropSchema(schema: string, url = postgresUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Terminates every backend of the connections named `applicationName` (`pg_terminate_backend`),
 * as a server restart or a failover does to a client; returns how many.
 */
export async function terminateBackends(applicationName: string, url = postgresUrl()): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
