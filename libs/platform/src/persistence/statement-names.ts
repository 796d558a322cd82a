/**
 * The names under which named prepared statements are sent, renamed when PostgreSQL
 * refuses one because its result changed shape.
 *
 * Why: a connection keeps a named statement prepared for its lifetime, with the columns
 * (names and types) of its result as they were when it was prepared. A migration that
 * changes them (a selected column's type, a column added under `SELECT *`) makes every
 * later execution of that statement on that connection fail with "cached plan must not
 * change result type" (feature_not_supported, 0A000); neither re-planning nor DISCARD
 * PLANS lifts it, only preparing the statement again. During a rolling deploy the old
 * instances run on after the new ones migrated, so their statements would fail until they
 * stop. The first refusal of a statement in this process gives it a new name, under which
 * each connection prepares it again for the table as it is now.
 */
const renamed = new Map<string, string>();
let generation = 0;

const RESULT_TYPE_CHANGED = 'cached plan must not change result type';

/** Whether PostgreSQL refused a prepared statement because its result changed shape (pg's error, or TypeORM's around it). */
export function isResultTypeChange(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown };
  if (e.code === '0A000' && String(e.message).includes(RESULT_TYPE_CHANGED)) return true;
  return e.driverError !== undefined && e.driverError !== err && isResultTypeChange(e.driverError);
}

/**
 * Runs a named statement under its current name (`run` sends it under the name given). When
 * PostgreSQL refuses it because its result changed shape, the statement gets a new name for
 * every later call in this process; with `retry` (the statement runs outside a transaction)
 * it is sent again under that name at once, otherwise the error stands (the transaction is
 * aborted; the next one prepares the new name).
 */
export async function withStatementName<T>(name: string, retry: boolean, run: (name: string) => Promise<T>): Promise<T> {
  const sent = renamed.get(name) ?? name;
  try {
    return await run(sent);
  } catch (err) {
    if (!isResultTypeChange(err)) throw err;
    // calls that failed together rename it once
    if ((renamed.get(name) ?? name) === sent) renamed.set(name, `${name}__${++generation}`);
    if (!retry) throw err;
    return run(renamed.get(name) as string);
  }
}
