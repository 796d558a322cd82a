import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Client } from 'pg';
import { TEMPLATE_PREFIX, TEST_ADMIN_URL, templateVariable, testDatabaseUrl, withAdminClient } from './database';
import { spawnAppEntry } from './service-process';

/**
 * Class of the session advisory locks (two-key form, second key `hashtext(name)`) by which
 * a jest run holds its template on the admin database for as long as it runs. A run that
 * was killed loses its session, hence the lock, and the next run drops its template.
 */
export const TEMPLATE_LOCK_CLASS = 7_261_002;

/** A migrated template of one jest run, held (locked) until `drop()`. */
export interface DatabaseTemplate {
  name: string;
  drop(): Promise<void>;
}

/** Digest of an app's migrations folder (file names and contents): the migration set. */
export function migrationsDigest(appRoot: string): string {
  const dir = join(appRoot, 'src/migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 8);
}

/** Runs `apps/<app>/src/main.ts migrate` (the deploy jobs' path) against `url`. */
function migrate(app: string, url: string): Promise<void> {
  const { child, output } = spawnAppEntry(app, ['migrate'], { DATABASE_URL: url, NODE_ENV: 'test' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`migrating the test database template failed (${signal ?? code}): ${output()}`)),
    );
  });
}

/** Drops the templates of runs that ended without dropping theirs (their lock is free). */
export async function dropAbandonedTemplates(holder: Client): Promise<void> {
  const { rows } = await holder.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [
    TEMPLATE_PREFIX,
  ]);
  for (const { datname } of rows) {
    const { rows: got } = await holder.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
      TEMPLATE_LOCK_CLASS,
      datname,
    ]);
    if (!got[0].locked) continue; // a live run's template
    try {
      await holder.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [TEMPLATE_LOCK_CLASS, datname]);
    }
  }
}

/**
 * Creates the migrated template of the app at `appRoot` (`apps/<app>`) for one jest run:
 * an empty database migrated by the app's own `migrate` command, then closed to
 * connections (PostgreSQL copies a template only while no session is connected to it).
 * Test databases are then made with `CREATE DATABASE … TEMPLATE` (createTestDatabase
 * with `template: '<app>'`, through the environment variable set here). The template is
 * locked by a session of this run until `drop()`; templates of runs that were killed are
 * dropped first.
 */
export async function createDatabaseTemplate(appRoot: string): Promise<DatabaseTemplate> {
  const app = basename(appRoot);
  const name = `${TEMPLATE_PREFIX}${app.replace(/\W/g, '_')}_${migrationsDigest(appRoot)}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  // Advisory locks belong to one database: every run holds and probes them on the admin database.
  const holder = new Client({ connectionString: TEST_ADMIN_URL });
  // A lost session only loses the lock: the run goes on with its template (drop() still drops it).
  holder.on('error', () => undefined);
  await holder.connect();
  try {
    await dropAbandonedTemplates(holder);
    // Locked before it exists, so no other run can take it for abandoned.
    await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [TEMPLATE_LOCK_CLASS, name]);
    await holder.query(`CREATE DATABASE "${name}"`);
    await migrate(app, testDatabaseUrl(name));
    await holder.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
  } catch (err) {
    await holder.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await holder.end().catch(() => undefined);
    throw err;
  }
  process.env[templateVariable(app)] = name;
  return {
    name,
    async drop() {
      delete process.env[templateVariable(app)];
      const dropTemplate = `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`;
      try {
        await holder.query(dropTemplate);
      } catch {
        // The holding session was lost during the run: the template is dropped through a new one.
        await withAdminClient((admin) => admin.query(dropTemplate));
      } finally {
        // Ending the session releases its lock.
        await holder.end();
      }
    },
  };
}
