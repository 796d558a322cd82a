import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase, TEMPLATE_PREFIX, templateVariable, withAdminClient } from '../src/testing/database';
import {
  createDatabaseTemplate,
  DatabaseTemplate,
  migrationsDigest,
  TEMPLATE_LOCK_CLASS,
} from '../src/testing/database-template';
import {
  cleanUpAsAnotherRun,
  connectTo,
  contentsOf,
  databaseExists,
  dropDatabase,
  waitFor,
  whileOpen,
} from './fixtures/template-databases';

const REPO = join(__dirname, '../../..');
const APP = 'records-service';
const APP_ROOT = join(REPO, 'apps', APP);

// Each template is migrated by the app's own `migrate` process (compiled on the fly).
jest.setTimeout(180_000);

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
