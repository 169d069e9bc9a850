/**
 * How the PostgreSQL stores' statements reach the server: each known statement text is prepared
 * once per connection and then only executed, so the server parses and plans it once per
 * connection instead of on every call (at 7 to 9 statements per task, parsing and planning were
 * about a third of PostgreSQL's CPU per task). Statements run alone are named `pg` queries; a
 * batch is one simple-protocol query of `EXECUTE`s, preceded by the `PREPARE` of each statement
 * that connection has not prepared yet.
 */
import type pg from 'pg';

/** Most distinct statement texts given a name; more run unprepared (bounded memory per connection). */
const MAX_NAMED = 256;

/** A statement's text and its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Names of statement texts; the two kinds of preparing never share a name. */
export class StatementNames {
  readonly #names = new Map<string, number>();
  /** Batch statements each connection has prepared with `PREPARE` (a failed batch forgets its connection). */
  readonly #prepared = new WeakMap<pg.ClientBase, Set<number>>();

  #id(sql: string): number | undefined {
    let id = this.#names.get(sql);
    if (id === undefined && this.#names.size < MAX_NAMED) {
      id = this.#names.size + 1;
      this.#names.set(sql, id);
    }
    return id;
  }

  /** The `pg` query config of a statement run alone: named (so prepared) when the text is known. */
  config(sql: string, params: readonly unknown[]): pg.QueryConfig {
    const id = this.#id(sql);
    return id === undefined
      ? { text: sql, values: params as unknown[] }
      : { name: `a2a_q${id}`, text: sql, values: params as unknown[] };
  }

  /**
   * The batch as one simple-protocol query, `BEGIN; ...; COMMIT`, each statement an `EXECUTE`
   * of its prepared form with each parameter written as a quoted literal: untyped text, as `pg`
   * sends parameters, so the server infers the same types. Undefined when a parameter is not a
   * string, number, boolean or null (then the statements go one by one with their parameters).
   * `prepared(client)` must be called once the batch committed: only then are its `PREPARE`s
   * known to have run on that connection.
   */
  batch(
    client: pg.ClientBase,
    statements: readonly Statement[],
  ): { text: string; prepared: () => void } | undefined {
    const known = this.#prepared.get(client);
    const added: number[] = [];
    let text = 'BEGIN';
    for (const { sql, params } of statements) {
      const args: string[] = [];
      for (const value of params) {
        const literal = toLiteral(value);
        if (literal === undefined) return undefined;
        args.push(literal);
      }
      const id = this.#id(sql);
      if (id === undefined) {
        text += `;\n${inline(sql, args)}`;
        continue;
      }
      if (!known?.has(id) && !added.includes(id)) {
        added.push(id);
        text += `;\nPREPARE a2a_b${id} AS ${sql.trimEnd().replace(/;$/, '')}`;
      }
      text += `;\nEXECUTE a2a_b${id}${args.length > 0 ? `(${args.join(', ')})` : ''}`;
    }
    return {
      text: `${text};\nCOMMIT`,
      prepared: () => {
        if (added.length === 0) return;
        let set = this.#prepared.get(client);
        if (!set) this.#prepared.set(client, (set = new Set()));
        for (const id of added) set.add(id);
      },
    };
  }
}

/** A `$n` placeholder of a statement. */
const PLACEHOLDER = /\$(\d+)/g;

/** `sql` with each placeholder replaced by its literal (statements past the naming bound). */
function inline(sql: string, args: readonly string[]): string {
  return sql
    .replace(PLACEHOLDER, (_, n: string) => args[Number(n) - 1] ?? 'NULL')
    .trimEnd()
    .replace(/;$/, '');
}

/** A parameter as an SQL literal, or undefined when it has no plain literal form. */
function toLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return `'${String(value)}'`;
  return undefined;
}

/**
 * `value` as a string literal. `pg.escapeLiteral` builds it a character at a time, which costs
 * more than the rest of a batch for task documents; this does the same with two replaces. A
 * value with a backslash gets the `E''` form, read the same whatever
 * standard_conforming_strings says.
 */
function quote(value: string): string {
  const quoted = value.replaceAll("'", "''");
  return value.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}
