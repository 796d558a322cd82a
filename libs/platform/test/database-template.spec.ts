import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  createTestDatabase,
  TEST_ADMIN_URL,
  TestDatabase,
  TEMPLATE_PREFIX,
  templateVariable,
  testDatabaseUrl,
  withAdminClient,
} from '../src/testing/database';
import {
  createDatabaseTemplate,
  DatabaseTemplate,
  dropAbandonedTemplates,
  migrationsDigest,
  TEMPLATE_LOCK_CLASS,
} from '../src/testing/database-template';

const REPO = join(__dirname, '../../..');
const APP = 'records-service';
const APP_ROOT = join(REPO, 'apps', APP);

// Each template is migrated by the app's own `migrate` process (compiled on the fly).
jest.setTimeout(180_000);

/** Another run's clean-up: a session of its own on the admin database. */
async function cleanUpAsAnotherRun(): Promise<void> {
  const admin = new Client({ connectionString: TEST_ADMIN_URL });
  await admin.connect();
  try {
    await dropAbandonedTemplates(admin);
  } finally {
    await admin.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const { rows } = await withAdminClient((admin) => admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
  return rows.length === 1;
}

function dropDatabase(name: string): Promise<unknown> {
  return withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

async function connectTo(name: string): Promise<Client> {
  const client = new Client({ connectionString: testDatabaseUrl(name) });
  // A session the test expects to be cut must not crash the test process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

interface Contents {
  tables: Record<string, number>;
  migrations: string[];
}

/** Every table of the public schema with its row count, and the applied migrations. */
async function contentsOf(name: string): Promise<Contents> {
  const client = await connectTo(name);
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const tables: Record<string, number> = {};
    for (const { table_name } of rows) {
      const { rows: counted } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}"`);
      tables[table_name] = counted[0].n;
    }
    const migrations = 'migrations' in tables
      ? (await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY timestamp')).rows.map((r) => r.name)
      : [];
    return { tables, migrations };
  } finally {
    await client.end();
  }
}

/** Runs `fn` with the template open to connections, then puts back what it allowed before. */
async function whileOpen<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const allowed = await withAdminClient(async (admin) => {
    const { rows } = await admin.query<{ datallowconn: boolean }>('SELECT datallowconn FROM pg_database WHERE datname = $1', [name]);
    await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`);
    return rows[0].datallowconn;
  });
  try {
    return await fn();
  } finally {
    await withAdminClient((admin) => admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS ${allowed}`));
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A jest run of its own (fixtures/template-run.ts): its template's name once created. */
interface OtherRun {
  child: ChildProcess;
  /** The application_name of its sessions. */
  session: string;
  template?: string;
}

describe('the migrated test database template of a jest run', () => {
  let template: DatabaseTemplate | undefined;
  const databases: TestDatabase[] = [];
  const names: string[] = [];
  const runs: OtherRun[] = [];

  /** This run's template (beforeAll). */
  const ours = (): string => {
    if (!template) throw new Error('no template: beforeAll failed');
    return template.name;
  };
  const track = (db: TestDatabase): TestDatabase => (databases.push(db), db);
  const copy = (prefix: string) => createTestDatabase(prefix, { template: APP }).then(track);

  /** Starts another run in a process of its own and resolves with its template once made. */
  function startOtherRun(): Promise<{ run: OtherRun; template: string }> {
    const session = `platform_tpl_run_${randomBytes(4).toString('hex')}`;
    const child = spawn(
      process.execPath,
      ['-r', 'tsconfig-paths/register', '-r', '@swc-node/register', join(__dirname, 'fixtures/template-run.ts'), APP_ROOT],
      {
        cwd: REPO,
        env: {
          ...process.env,
          SWC_NODE_PROJECT: join(__dirname, 'fixtures/tsconfig.json'),
          TS_NODE_PROJECT: join(REPO, 'tsconfig.base.json'),
          PGAPPNAME: session,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const run: OtherRun = { child, session };
    runs.push(run);
    let output = '';
    return new Promise((resolve, reject) => {
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      child.stdout?.on('data', (d: Buffer) => {
        output += d.toString();
        const line = /^(t_tpl_\w+)\n/m.exec(output);
        if (line && !run.template) {
          run.template = line[1];
          names.push(line[1]);
          resolve({ run, template: line[1] });
        }
      });
      child.once('exit', (code, signal) => reject(new Error(`the other run exited (${signal ?? code}): ${output}`)));
    });
  }

  async function kill(run: OtherRun): Promise<void> {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      const exited = new Promise((r) => run.child.once('exit', r));
      run.child.kill('SIGKILL');
      await exited;
    }
  }

  beforeAll(async () => {
    template = await createDatabaseTemplate(APP_ROOT);
  });

  afterAll(async () => {
    for (const run of runs) await kill(run);
    for (const db of databases) await db.drop();
    for (const name of names) await dropDatabase(name);
    await template?.drop();
  });

  it('is named by the app and the digest of its migrations, and is the template of createTestDatabase', async () => {
    const name = ours();
    expect(name).toMatch(new RegExp(`^${TEMPLATE_PREFIX}records_service_${migrationsDigest(APP_ROOT)}_[0-9a-z]+_[0-9a-f]{6}$`));
    expect(process.env[templateVariable(APP)]).toBe(name);
    expect(await databaseExists(name)).toBe(true);
  });

  it("makes databases with the template's tables and rows, every migration applied, each a database of its own", async () => {
    const first = await copy('platform_tpl_copy');
    const second = await copy('platform_tpl_copy');
    const copied = await contentsOf(first.name);
    const original = await whileOpen(ours(), () => contentsOf(ours()));
    expect(copied).toEqual(original);

    // Every migration file of the app has been applied (the app's start finds nothing to run).
    const stamps = readdirSync(join(APP_ROOT, 'src/migrations'))
      .map((f) => /^(\d+)-.*\.ts$/.exec(f)?.[1])
      .filter((s): s is string => !!s);
    const applied = copied.migrations.map((m) => /(\d+)$/.exec(m)?.[1]);
    expect(stamps.length).toBeGreaterThan(0);
    expect(applied).toEqual(expect.arrayContaining(stamps));
    // Reference data inserted by a migration came along.
    expect(copied.tables['record_types']).toBeGreaterThan(0);

    // A change to one copy is not in another.
    const client = await connectTo(first.name);
    try {
      await client.query('DELETE FROM record_subtypes');
    } finally {
      await client.end();
    }
    expect((await contentsOf(first.name)).tables['record_subtypes']).toBe(0);
    expect((await contentsOf(second.name)).tables['record_subtypes']).toBe(original.tables['record_subtypes']);

    // Without the template, a database starts empty.
    const empty = track(await createTestDatabase('platform_tpl_empty'));
    expect(await contentsOf(empty.name)).toEqual({ tables: {}, migrations: [] });
  });

  it('is closed to connections, so copies are never refused for a connected session', async () => {
    await expect(connectTo(ours())).rejects.toMatchObject({ code: '55000' }); // not accepting connections
    const copies = await Promise.all([1, 2, 3].map(() => copy('platform_tpl_parallel')));
    for (const db of copies) expect(await databaseExists(db.name)).toBe(true);
  });

  it('could not be copied while a session is connected to it (why it is closed)', async () => {
    await whileOpen(ours(), async () => {
      const session = await connectTo(ours());
      try {
        // source database "…" is being accessed by other users
        await expect(copy('platform_tpl_blocked')).rejects.toMatchObject({ code: '55006' });
      } finally {
        await session.end();
      }
    });
    expect(await databaseExists((await copy('platform_tpl_reopened')).name)).toBe(true);
  });

  it("is left alone by another run's clean-up while its run lives, and dropped by the next clean-up once that run is killed", async () => {
    // The other run's setup cleans up while this run holds its template.
    const { run: other, template: otherTemplate } = await startOtherRun();
    expect(otherTemplate).not.toBe(ours());
    expect(await databaseExists(ours())).toBe(true);
    expect(await databaseExists((await copy('platform_tpl_after_other')).name)).toBe(true);

    // This run's clean-up while the other one lives.
    await cleanUpAsAnotherRun();
    expect(await databaseExists(otherTemplate)).toBe(true);

    // Killed: its session, and with it the lock, goes away.
    await kill(other);
    await waitFor(
      "the killed run's session to end",
      async () => {
        const { rows } = await withAdminClient((admin) =>
          admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [other.session]),
        );
        return rows.length === 0;
      },
      30_000,
    );
    await cleanUpAsAnotherRun();
    expect(await databaseExists(otherTemplate)).toBe(false);
    expect(await databaseExists(ours())).toBe(true);
  });

  it('drops an abandoned template even while a session is still connected to it (a run killed during its migration)', async () => {
    const name = `${TEMPLATE_PREFIX}platform_spec_${randomBytes(4).toString('hex')}`;
    names.push(name);
    await withAdminClient((admin) => admin.query(`CREATE DATABASE "${name}"`));
    const migrating = await connectTo(name);
    try {
      await cleanUpAsAnotherRun();
      expect(await databaseExists(name)).toBe(false);
      await expect(migrating.query('SELECT 1')).rejects.toThrow();
    } finally {
      await migrating.end().catch(() => undefined);
    }
  });

  it('drops its template at the end even when its lock session was lost during the run', async () => {
    const variable = templateVariable(APP);
    const ofThisRun = process.env[variable];
    const lost = await createDatabaseTemplate(APP_ROOT);
    names.push(lost.name);
    try {
      const { rows } = await withAdminClient((admin) =>
        admin.query<{ ended: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_locks
            WHERE locktype = 'advisory' AND classid = $1 AND objid = hashtext($2)::oid AND objsubid = 2 AND granted`,
          [TEMPLATE_LOCK_CLASS, lost.name],
        ),
      );
      expect(rows[0].ended).toBe(1);
      await lost.drop();
      expect(await databaseExists(lost.name)).toBe(false);
    } finally {
      if (ofThisRun === undefined) delete process.env[variable];
      else process.env[variable] = ofThisRun;
    }
  });

  it("refuses a test database prefix that would name it like a template (another run's clean-up would drop it)", async () => {
    for (const prefix of ['tpl', 'tpl_copy', 'tpl-copy']) {
      await expect(createTestDatabase(prefix).then(track)).rejects.toThrow(/template/);
    }
    // Other prefixes beginning with the same letters are fine.
    const kept = track(await createTestDatabase('tplx'));
    await cleanUpAsAnotherRun();
    expect(await databaseExists(kept.name)).toBe(true);
  });
});

describe('migrationsDigest', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** An app root whose src/migrations holds `files`. */
  function appRoot(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'platform-tpl-digest-'));
    roots.push(root);
    mkdirSync(join(root, 'src/migrations'), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, 'src/migrations', file), text);
    return root;
  }

  const set = { '1-first.ts': 'export class First1 {}', '2-second.ts': 'export class Second2 {}', 'README.md': 'notes' };

  it('is the same for the same migration set, wherever the app lives', () => {
    const digest = migrationsDigest(appRoot(set));
    expect(digest).toMatch(/^[0-9a-f]{8}$/);
    expect(migrationsDigest(appRoot(set))).toBe(digest);
  });

  it('changes when a migration is changed, added, removed or renamed, not for other files', () => {
    const root = appRoot(set);
    const dir = join(root, 'src/migrations');
    const original = migrationsDigest(root);

    writeFileSync(join(dir, 'README.md'), 'other notes');
    expect(migrationsDigest(root)).toBe(original);

    writeFileSync(join(dir, '2-second.ts'), 'export class Second2 { up() {} }');
    const changed = migrationsDigest(root);
    expect(changed).not.toBe(original);

    writeFileSync(join(dir, '3-third.ts'), 'export class Third3 {}');
    const added = migrationsDigest(root);
    expect(new Set([original, changed, added]).size).toBe(3);

    rmSync(join(dir, '3-third.ts'));
    expect(migrationsDigest(root)).toBe(changed);

    renameSync(join(dir, '2-second.ts'), join(dir, '4-second.ts'));
    expect(new Set([original, changed, added, migrationsDigest(root)]).size).toBe(4);
  });
});
