import type { ProblemException } from './problem.exception';

/** SQLSTATE of a PostgreSQL unique violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * A field of a database error: TypeORM's QueryFailedError carries the driver's
 * error in `driverError`, a raw node-postgres error carries it on itself.
 */
function databaseField(err: unknown, name: 'code' | 'constraint'): unknown {
  if (typeof err !== 'object' || err === null) return undefined;
  const driver = (err as { driverError?: Record<string, unknown> }).driverError;
  return driver?.[name] ?? (err as Record<string, unknown>)[name];
}

/** The PostgreSQL SQLSTATE an error carries (five digits or capitals), if any. */
export function sqlStateOf(err: unknown): string | undefined {
  const code = databaseField(err, 'code');
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * When `err` is a PostgreSQL unique violation, the constraint it names ('' when
 * the driver gave none); undefined for any other error.
 */
export function uniqueViolationConstraint(err: unknown): string | undefined {
  if (sqlStateOf(err) !== UNIQUE_VIOLATION) return undefined;
  const constraint = databaseField(err, 'constraint');
  return typeof constraint === 'string' ? constraint : '';
}

/** The problem each unique constraint means, by constraint (or unique index) name. */
export type UniqueViolationProblems = Readonly<Record<string, () => ProblemException>>;

/**
 * Rethrows a unique violation on one of the named constraints as its problem,
 * and anything else (other constraints, other errors) unchanged, e.g.
 * `.catch((err) => mapUniqueViolation(err, { accounts_tenant_username_key: usernameTaken }))`.
 * A violation left unmapped reaches the exception filter's generic 409 `conflict`.
 */
export function mapUniqueViolation(err: unknown, problems: UniqueViolationProblems): never {
  const constraint = uniqueViolationConstraint(err);
  if (constraint && Object.hasOwn(problems, constraint)) throw problems[constraint]();
  throw err;
}
