import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { SUBJECTS } from '@vault/contracts';
import { IdempotencyKeysJanitor, KILL_AFTER_IDEMPOTENT_COMMIT_ENV } from '@vault/platform/idempotency';
import { startServiceProcess } from '@vault/platform/testing';
import { filesPath, meta, upload } from './files-support';
import { Caller, recordBody, RecordsTestApp } from './support';

const KEY = 'Idempotency-Key';
const REPLAYED = 'idempotency-replayed';

/** Resolves once the key is claimed in flight (the first request is inside its handler). */
async function inFlight(t: RecordsTestApp, key: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await t.sql(`SELECT 1 FROM idempotency_keys WHERE key = $1 AND state = 'in_flight'`, [key]);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`key ${key} never went in flight`);
}

/** Holds a row lock from a connection of its own until released. */
async function holdRowLock(url: string, sql: string, params: unknown[]): Promise<() => Promise<void>> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  await pg.query('BEGIN');
  await pg.query(sql, params);
  return async () => {
    await pg.query('COMMIT');
    await pg.end();
  };
}

describe('records-service Idempotency-Key', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_idempotency');
    owner = await t.caller();
    vaultId = await t.createVault(owner, { name: 'Family' });
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(() => t?.stop());

  const vaultsOf = async (c: Caller) =>
    Number((await t.sql<{ n: string }>(`SELECT count(*) AS n FROM vaults WHERE created_by = $1`, [c.openId]))[0].n);
  const recordsIn = async (v: string) =>
    Number((await t.sql<{ n: string }>(`SELECT count(*) AS n FROM records WHERE vault_id = $1`, [v]))[0].n);
  const filesOn = async (r: string) =>
    Number((await t.sql<{ n: string }>(`SELECT count(*) AS n FROM record_files WHERE record_id = $1`, [r]))[0].n);
  const events = async (subject: string) =>
    Number((await t.sql<{ n: string }>(`SELECT count(*) AS n FROM outbox_events WHERE subject = $1`, [subject]))[0].n);

  describe('POST /vault', () => {
    it('runs once: a retry answers the stored 201 and body with Idempotency-Replayed, and creates nothing', async () => {
      const c = await t.caller();
      const key = randomUUID();
      const createdEvents = await events(SUBJECTS.vaultCreated);
      const first = await t.post(c, '/vault', { name: 'Taxes' }).set(KEY, key).expect(201);
      expect(first.headers[REPLAYED]).toBeUndefined();
      const again = await t.post(c, '/vault', { name: 'Taxes' }).set(KEY, key).expect(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.headers['content-type']).toBe(first.headers['content-type']);
      expect(again.body).toEqual(first.body);
      expect(await vaultsOf(c)).toBe(1);
      expect(await events(SUBJECTS.vaultCreated)).toBe(createdEvents + 1);
      const stored = await t.sql(`SELECT state, status, tenant_id, caller FROM idempotency_keys WHERE key = $1`, [key]);
      expect(stored).toEqual([{ state: 'completed', status: 201, tenant_id: c.tenantId, caller: c.openId }]);
    });

    it('the same key with a different body is 422 idempotency_key_reused and creates nothing', async () => {
      const c = await t.caller();
      const key = randomUUID();
      await t.post(c, '/vault', { name: 'One' }).set(KEY, key).expect(201);
      const res = await t.post(c, '/vault', { name: 'Two' }).set(KEY, key).expect(422);
      expect(res.body.code).toBe('idempotency_key_reused');
      expect(await vaultsOf(c)).toBe(1);
    });

    it('a key of another caller (same tenant) does not replay: each caller gets its own vault', async () => {
      const a = await t.caller('tenant-a');
      const b = await t.caller('tenant-a');
      const key = randomUUID();
      const first = await t.post(a, '/vault', { name: 'Shared key' }).set(KEY, key).expect(201);
      const other = await t.post(b, '/vault', { name: 'Shared key' }).set(KEY, key).expect(201);
      expect(other.headers[REPLAYED]).toBeUndefined();
      expect(other.body.id).not.toBe(first.body.id);
      expect(await vaultsOf(a)).toBe(1);
      expect(await vaultsOf(b)).toBe(1);
    });

    it('a stored refusal (4xx) replays; a key after its 24 h window runs again', async () => {
      const c = await t.caller();
      const key = randomUUID();
      const refused = await t.post(c, '/vault', { name: 'x', type: 'nonsense' }).set(KEY, key).expect(400);
      const replayed = await t.post(c, '/vault', { name: 'x', type: 'nonsense' }).set(KEY, key).expect(400);
      expect(replayed.headers[REPLAYED]).toBe('true');
      expect(replayed.body).toEqual(refused.body);
      // the stored body keeps the first request's id; the header names the request being answered
      expect(replayed.body.requestId).toBe(refused.headers['x-request-id']);
      expect(replayed.headers['x-request-id']).toEqual(expect.any(String));
      expect(replayed.headers['x-request-id']).not.toBe(refused.headers['x-request-id']);

      const later = randomUUID();
      await t.post(c, '/vault', { name: 'Later' }).set(KEY, later).expect(201);
      await t.sql(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [later]);
      const rerun = await t.post(c, '/vault', { name: 'Later' }).set(KEY, later).expect(201);
      expect(rerun.headers[REPLAYED]).toBeUndefined();
      expect(await vaultsOf(c)).toBe(2);
    });

    it('keys must be 1 to 255 visible ASCII characters (400 otherwise, nothing created)', async () => {
      const c = await t.caller();
      for (const bad of ['x'.repeat(256), 'with space', 'caf\u00e9']) {
        const res = await t.post(c, '/vault', { name: 'Bad key' }).set(KEY, bad).expect(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field: KEY })]);
      }
      await t.post(c, '/vault', { name: 'Long key' }).set(KEY, 'k'.repeat(255)).expect(201);
      expect(await vaultsOf(c)).toBe(1);
    });
  });

  describe('POST …/records', () => {
    const path = () => `/vault/vault-id/${vaultId}/records`;

    it('runs once and replays; a different body is 422', async () => {
      const key = randomUUID();
      const before = await recordsIn(vaultId);
      const first = await t
        .post(owner, path(), recordBody({ name: 'Deed' }))
        .set(KEY, key)
        .expect(200);
      const again = await t
        .post(owner, path(), recordBody({ name: 'Deed' }))
        .set(KEY, key)
        .expect(200);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await recordsIn(vaultId)).toBe(before + 1);
      const reused = await t
        .post(owner, path(), recordBody({ name: 'Other' }))
        .set(KEY, key)
        .expect(422);
      expect(reused.body.code).toBe('idempotency_key_reused');
      expect(await recordsIn(vaultId)).toBe(before + 1);
    });

    it('a repeat while the first still runs is 409 idempotency_key_in_flight; afterwards it replays', async () => {
      const key = randomUUID();
      const before = await recordsIn(vaultId);
      // the record's quota claim locks the vault row: the first request waits inside its handler
      const release = await holdRowLock(t.db.url, `SELECT 1 FROM vaults WHERE id = $1 FOR UPDATE`, [vaultId]);
      const first = t
        .post(owner, path(), recordBody({ name: 'Slow' }))
        .set(KEY, key)
        .then((r) => r);
      try {
        await inFlight(t, key);
        const second = await t
          .post(owner, path(), recordBody({ name: 'Slow' }))
          .set(KEY, key)
          .expect(409);
        expect(second.body.code).toBe('idempotency_key_in_flight');
      } finally {
        await release();
      }
      const done = await first;
      expect(done.status).toBe(200);
      const replay = await t
        .post(owner, path(), recordBody({ name: 'Slow' }))
        .set(KEY, key)
        .expect(200);
      expect(replay.body).toEqual(done.body);
      expect(await recordsIn(vaultId)).toBe(before + 1);
    });

    it('the record, its event and the stored answer commit together: when the answer cannot be stored, none remains', async () => {
      const key = randomUUID();
      const before = { records: await recordsIn(vaultId), events: await events(SUBJECTS.recordCreated) };
      await t.sql(`CREATE FUNCTION refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'answer refused for the test'; END $$`);
      await t.sql(`CREATE TRIGGER refuse_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW
        WHEN (NEW.key = '${key}' AND NEW.state = 'completed') EXECUTE FUNCTION refuse_answer()`);
      try {
        const failed = await t
          .post(owner, path(), recordBody({ name: 'Unstored' }))
          .set(KEY, key)
          .expect(500);
        expect(failed.body.code).toBe('internal_error');
      } finally {
        await t.sql(`DROP TRIGGER refuse_answer ON idempotency_keys`);
        await t.sql(`DROP FUNCTION refuse_answer()`);
      }
      expect({ records: await recordsIn(vaultId), events: await events(SUBJECTS.recordCreated) }).toEqual(before);
      await t
        .post(owner, path(), recordBody({ name: 'Unstored' }))
        .set(KEY, key)
        .expect(200);
      expect({ records: await recordsIn(vaultId), events: await events(SUBJECTS.recordCreated) }).toEqual({
        records: before.records + 1,
        events: before.events + 1,
      });
    });
  });

  describe('POST …/record-files (multipart)', () => {
    it('runs once: a retry of the same file replays without a second file; other bytes under the key are 422', async () => {
      const key = randomUUID();
      const bytes = randomBytes(4096);
      const before = await filesOn(recordId);
      const uploaded = await events(SUBJECTS.fileUploaded);
      const m = meta(`scan-${key}.pdf`);
      const first = await upload(t, owner, vaultId, recordId, { meta: m, bytes, headers: { [KEY]: key } }).expect(201);
      const again = await upload(t, owner, vaultId, recordId, { meta: m, bytes, headers: { [KEY]: key } }).expect(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await filesOn(recordId)).toBe(before + 1);
      expect(await events(SUBJECTS.fileUploaded)).toBe(uploaded + 1);
      const other = await upload(t, owner, vaultId, recordId, {
        meta: m,
        bytes: randomBytes(4096),
        headers: { [KEY]: key },
      }).expect(422);
      expect(other.body.code).toBe('idempotency_key_reused');
      expect(await filesOn(recordId)).toBe(before + 1);
      // the bytes of refused repeats are not kept
      const queued = await t.sql(`SELECT count(*)::int AS n FROM file_purges`);
      expect(queued).toEqual([{ n: 0 }]);
    });

    it('a repeat while the first upload still commits is 409 at once', async () => {
      const key = randomUUID();
      const m = meta(`held-${key}.pdf`);
      const bytes = randomBytes(2048);
      const release = await holdRowLock(t.db.url, `SELECT 1 FROM records WHERE id = $1 FOR UPDATE`, [recordId]);
      const first = upload(t, owner, vaultId, recordId, { meta: m, bytes, headers: { [KEY]: key } }).then((r) => r);
      try {
        await inFlight(t, key);
        const second = await upload(t, owner, vaultId, recordId, { meta: m, bytes, headers: { [KEY]: key } }).expect(409);
        expect(second.body.code).toBe('idempotency_key_in_flight');
      } finally {
        await release();
      }
      expect((await first).status).toBe(201);
      const names = await t.sql(`SELECT file_name FROM record_files WHERE file_name = $1`, [m.fileName]);
      expect(names).toHaveLength(1);
    });
  });

  it('a 5xx is not stored: the key is released and the retry with the same key runs again', async () => {
    const c = await t.caller();
    const key = randomUUID();
    const name = `Fails once ${key}`;
    // the database refuses this vault's insert inside the handler: an unexpected error, 500
    await t.sql(`CREATE FUNCTION refuse_vault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await t.sql(`CREATE TRIGGER refuse_vault BEFORE INSERT ON vaults FOR EACH ROW
      WHEN (NEW.name = '${name}') EXECUTE FUNCTION refuse_vault()`);
    try {
      const failed = await t.post(c, '/vault', { name }).set(KEY, key).expect(500);
      expect(failed.body.code).toBe('internal_error');
      expect(failed.headers[REPLAYED]).toBeUndefined();
    } finally {
      await t.sql(`DROP TRIGGER refuse_vault ON vaults`);
      await t.sql(`DROP FUNCTION refuse_vault()`);
    }
    expect(await t.sql(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key])).toEqual([]);
    expect(await vaultsOf(c)).toBe(0);

    const retried = await t.post(c, '/vault', { name }).set(KEY, key).expect(201);
    expect(retried.headers[REPLAYED]).toBeUndefined();
    expect(await vaultsOf(c)).toBe(1);
    const stored = await t.sql(`SELECT state, status FROM idempotency_keys WHERE key = $1`, [key]);
    expect(stored).toEqual([{ state: 'completed', status: 201 }]);
    const replay = await t.post(c, '/vault', { name }).set(KEY, key).expect(201);
    expect(replay.headers[REPLAYED]).toBe('true');
    expect(replay.body).toEqual(retried.body);
  });

  describe('a crash after the commit, before the answer', () => {
    const children: ChildProcess[] = [];
    afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

    /** The real service (src/main.ts) as its own node process on a free port, on the suite's database. */
    async function spawnService(extra: Record<string, string>) {
      const started = await startServiceProcess('records-service', { DATABASE_URL: t.db.url, ...extra });
      children.push(started.child);
      return started;
    }

    it('the process is killed right after committing POST /vault; after a restart the retry replays and one vault exists', async () => {
      const c = await t.caller();
      const key = randomUUID();
      const body = { name: `Crash ${key}` };
      const dying = await spawnService({ [KILL_AFTER_IDEMPOTENT_COMMIT_ENV]: 'true' });
      const exited = new Promise((r) => dying.child.once('exit', (_code, signal) => r(signal)));
      const send = (base: string) =>
        request(base).post('/api/v1/vault').set('Authorization', `Bearer ${c.token}`).set(KEY, key).send(body);
      await expect(send(dying.base)).rejects.toThrow();
      expect(await exited).toBe('SIGKILL');
      // committed together: the vault and its key's answer
      const stored = await t.sql<{ state: string; status: number; body: string }>(
        `SELECT state, status, body FROM idempotency_keys WHERE key = $1`,
        [key],
      );
      expect(stored).toEqual([{ state: 'completed', status: 201, body: expect.any(String) }]);
      const vaultId = JSON.parse(stored[0].body).id as string;
      expect(await vaultsOf(c)).toBe(1);

      const restarted = await spawnService({});
      const retry = await send(restarted.base).expect(201);
      expect(retry.headers[REPLAYED]).toBe('true');
      expect(retry.body.id).toBe(vaultId);
      expect(await vaultsOf(c)).toBe(1);
      expect(await t.sql(`SELECT id FROM vaults WHERE created_by = $1`, [c.openId])).toEqual([{ id: vaultId }]);
      restarted.child.kill('SIGTERM');
    });
  });

  it('describes the header on every creating POST in the OpenAPI document', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
    const paths = ['/vault', '/vault/vault-id/{vaultId}/records', filesPath('{vaultId}', '{recordId}')];
    for (const p of paths) {
      const params = doc.paths[p].post.parameters as Array<{ name: string; in: string }>;
      expect(params).toEqual(expect.arrayContaining([expect.objectContaining({ name: KEY, in: 'header' })]));
    }
  });

  it('deletes keys whose window ended and keeps the others', async () => {
    const c = await t.caller();
    const [old, fresh] = [randomUUID(), randomUUID()];
    await t.post(c, '/vault', { name: 'Old' }).set(KEY, old).expect(201);
    await t.post(c, '/vault', { name: 'Fresh' }).set(KEY, fresh).expect(201);
    await t.sql(`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE key = $1`, [old]);
    expect(await t.app.get(IdempotencyKeysJanitor).purge()).toBeGreaterThanOrEqual(1);
    const left = await t.sql<{ key: string }>(`SELECT key FROM idempotency_keys WHERE key = ANY($1)`, [[old, fresh]]);
    expect(left).toEqual([{ key: fresh }]);
  });
});
