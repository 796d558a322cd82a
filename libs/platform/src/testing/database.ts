import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_ADMIN_URL = process.env['TEST_DATABASE_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * The app (e.g. `records-service`) whose migrated template this run's jest set up
   * (`globalSetup: database-template.setup.ts`): the database is a copy of it, with
   * every migration of the app already applied. Without such a template (a jest
   * configuration without that globalSetup) the database is created empty, and the app
   * migrates it at start.
   */
  template?: string;
}

/** The environment variable naming the migrated template of `app` for this jest run. */
export function templateVariable(app: string): string {
  return `TEST_DATABASE_TEMPLATE_${app.toUpperCase().replace(/\W/g, '_')}`;
}

/** Admin commands on the server (CREATE and DROP DATABASE run outside any database of a test). */
export async function withAdminClient<T>(fn: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: TEST_ADMIN_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** The URL of database `name` on the test server. */
export function testDatabaseUrl(name: string): string {
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Names of the migrated templates of jest runs (database-template.ts):
 * `t_tpl_<app>_<digest of its migrations>_<time>_<random>`. A run drops every database
 * so named whose run holds no lock on it, so no test database may be named so.
 */
export const TEMPLATE_PREFIX = 't_tpl_';

/** A unique database name: `t_<prefix>_<time>_<random>`, never a template's. */
function testDatabaseName(prefix: string): string {
  const name = `t_${prefix.replace(/\W/g, '_')}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (name.startsWith(TEMPLATE_PREFIX)) {
    throw new Error(
      `test database prefix '${prefix}' would name it like a template (${TEMPLATE_PREFIX}…): another run's clean-up would drop it`,
    );
  }
  return name;
}

/**
 * Creates a fresh, uniquely named database for one test run on the local
 * PostgreSQL server (a copy of the app's migrated template with `template`);
 * `drop()` removes it (closing leftover connections).
 */
export async function createTestDatabase(prefix: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = testDatabaseName(prefix);
  const template = options.template ? process.env[templateVariable(options.template)] : undefined;
  await withAdminClient((admin) =>
    admin.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`),
  );
  return {
    name,
    url: testDatabaseUrl(name),
    async drop() {
      await withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
