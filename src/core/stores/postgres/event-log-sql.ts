/**
 * The PostgreSQL event log writes (A2A 1.1 draft, GEN-5): CTEs that join a task write's
 * statement (so its transaction), inserting the change's entries and trimming older ones, both
 * only when the statement's `saved` CTE wrote the row.
 */

/**
 * `logged AS (...), trimmed AS (...)` for a statement whose `saved` CTE returns one row when the
 * task row was written. `$tenant`, `$owner`, `$id`: the task's parameters; `$entries`: the
 * entries as JSON (see eventLogJson); `$entries + 1`: the generation at or below which older
 * entries go (-1: none).
 */
export function eventLogCtes(tenant: number, owner: number, id: number, entries: number): string {
  const scope = `tenant = $${tenant} AND owner = $${owner} AND task_id = $${id}`;
  return `logged AS (
    INSERT INTO a2a_task_events (tenant, owner, task_id, generation, state, doc)
    SELECT $${tenant}, $${owner}, $${id}, e.generation, e.state, e.doc
    FROM saved, jsonb_to_recordset($${entries}::jsonb) AS e(generation bigint, state text, doc text)
    ON CONFLICT (tenant, owner, task_id, generation) DO UPDATE SET state = EXCLUDED.state, doc = EXCLUDED.doc),
  trimmed AS (
    DELETE FROM a2a_task_events WHERE ${scope} AND generation <= $${entries + 1} AND EXISTS (SELECT 1 FROM saved))`;
}
