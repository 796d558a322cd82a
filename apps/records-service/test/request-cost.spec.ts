import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Caller, recordBody, RecordsTestApp, spyOnStatements, StatementSpy, writePlansFile } from './support';

/**
 * What a request costs the database, and the live-record counter that spares the record
 * quota a COUNT: statements per request are counted at the pg client (whether TypeORM's
 * query runner sends them or a prepared statement on its pool), and the
 * counter is compared with the records it stands for after concurrent changes.
 */
describe('request cost and the live-record counter', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let spy: StatementSpy;

  beforeAll(async () => {
    const plans = writePlansFile({ free: { 'vault.maxVaultRecords': '20', 'account.maxOwnedVaults': '20' } });
    t = await RecordsTestApp.start('records_cost', { VAULT_PLANS_FILE: plans });
    owner = await t.caller();
    spy = spyOnStatements(t.pg);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.stop();
  });

  async function counted<T>(run: () => Promise<T>): Promise<string[]> {
    spy.sent.length = 0;
    await run();
    return spy.sent.splice(0).map((s) => s.text);
  }

  /** Runs `change` after the access read of each request `run` makes, before the request sees it. */
  async function changedAfterAccessRead<T>(change: (recordId: string) => Promise<unknown>, run: () => Promise<T>): Promise<T> {
    spy.after('access_with_record', (values) => change(String(values[3])));
    try {
      return await run();
    } finally {
      spy.after('access_with_record', undefined);
    }
  }

  const liveCounter = async (vaultId: string) =>
    (await t.sql<{ n: number }>('SELECT live_records AS n FROM vaults WHERE id = $1', [vaultId]))[0].n;
  const liveCount = async (vaultId: string) =>
    Number(
      (await t.sql<{ n: string }>(`SELECT count(*) AS n FROM records WHERE vault_id = $1 AND status <> 'DELETED'`, [vaultId]))[0]
        .n,
    );

  it('reads a record in at most two statements', async () => {
    const vaultId = await t.createVault(owner);
    const recordId = await t.createRecord(owner, vaultId);
    const run = await counted(() => t.get(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200));
    expect(run.length).toBeLessThanOrEqual(2);
  });

  it('changes a record without reading it twice, and creates one without counting the vault', async () => {
    const vaultId = await t.createVault(owner);
    const created = await counted(() => t.createRecord(owner, vaultId));
    expect(created.filter((s) => /count\(/i.test(s))).toEqual([]);
    // the access read, the vault's licence, then one statement: the claim of a place (the
    // counter's conditional increment, which locks the vault row for this statement only,
    // never FOR UPDATE before), the record with its owner role and its outbox row; no BEGIN
    // or COMMIT around it, nothing read back
    expect(created).toHaveLength(3);
    expect(created[2]).toMatch(
      /^WITH place AS \(UPDATE vaults SET live_records = live_records \+ 1 WHERE id = \$19::uuid AND live_records < \$20::bigint RETURNING id\), r AS \(INSERT INTO records .* FROM place RETURNING id, tenant_id\), m AS \(INSERT INTO record_memberships .* FROM r\), also AS \(INSERT INTO "outbox_events" .* FROM r\)/,
    );
    expect(created.filter((s) => /FOR UPDATE|^BEGIN|^START TRANSACTION|COMMIT/i.test(s))).toEqual([]);
    expect(created.filter((s) => /^SELECT/i.test(s) && /FROM "?records"?\b/.test(s))).toEqual([]);
    const recordId = await t.createRecord(owner, vaultId);
    const updated = await counted(() =>
      t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name: 'Renamed' })).expect(200),
    );
    // the access read, then the update with its outbox row in one statement: no lock read,
    // no BEGIN or COMMIT around it, and without If-Match no condition on the version
    expect(updated).toHaveLength(2);
    expect(updated[1]).toMatch(
      /^WITH changed AS \(UPDATE records SET .* WHERE id = \$1 AND vault_id = \$2 AND status <> 'DELETED' RETURNING version\), also AS \(INSERT INTO "outbox_events" .* FROM changed\)/,
    );
    expect(updated.filter((s) => /FOR UPDATE|^BEGIN|^START TRANSACTION|COMMIT/i.test(s))).toEqual([]);
    const [row] = await t.sql<{ name: string; version: number }>('SELECT name, version FROM records WHERE id = $1', [recordId]);
    expect(row).toEqual({ name: 'Renamed', version: 2 });
  });

  const awkwardName = `O'Brien \\ "Ümläut" ${'\u{1F4C4}'} $1 \\'; DROP TABLE records; --`;

  /** The record's one outbox event of a change, checked against the record row it was written with. */
  async function changeEvent(recordId: string, name: string) {
    const events = (await t.outbox('vault.record.updated.v1')).filter((e) => e.payload.record.id === recordId);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.payload.record.name).toBe(name);
    const [row] = await t.sql<{ name: string; occurred: boolean }>(
      `SELECT r.name, o.occurred_at = (o.payload->>'occurredAt')::timestamptz AS occurred
         FROM records r, outbox_events o WHERE r.id = $1 AND o.id = $2`,
      [recordId, event.id],
    );
    expect(row).toEqual({ name, occurred: true });
    return event;
  }

  it("changes a record with its event's outbox row in the same statement, its values exactly", async () => {
    const vaultId = await t.createVault(owner);
    const recordId = await t.createRecord(owner, vaultId);
    const updated = await counted(() =>
      t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name: awkwardName })).expect(200),
    );
    expect(updated).toHaveLength(2);
    const event = await changeEvent(recordId, awkwardName);
    expect(event).toMatchObject({ vault_id: vaultId, published_at: null });
  });

  describe('a vault that changes between the access read and the create', () => {
    /** Runs `change` (of the vault) after the create's access read, before the create sees it. */
    async function createdAfter(change: (vaultId: string) => Promise<unknown>, vaultId: string) {
      spy.after('access_vault_only', (values) => change(String(values[0])));
      try {
        return await t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody({ name: 'Late' }));
      } finally {
        spy.after('access_vault_only', undefined);
      }
    }
    const records = (vaultId: string) => t.sql('SELECT id FROM records WHERE vault_id = $1', [vaultId]);

    it('is 409 max_records_reached when the vault filled meanwhile, and nothing is written', async () => {
      const vaultId = await t.createVault(owner);
      const res = await createdAfter((id) => t.sql('UPDATE vaults SET live_records = 20 WHERE id = $1', [id]), vaultId);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('max_records_reached');
      expect(await records(vaultId)).toEqual([]);
      expect(await liveCounter(vaultId)).toBe(20);
      expect((await t.outbox('vault.record.created.v1')).filter((e) => e.vault_id === vaultId)).toEqual([]);
    });

    it('is 404 when the vault was removed meanwhile, and nothing is written', async () => {
      const vaultId = await t.createVault(owner);
      const res = await createdAfter(async (id) => {
        for (const table of ['vault_memberships', 'vault_licenses'])
          await t.sql(`DELETE FROM ${table} WHERE vault_id = $1`, [id]);
        await t.sql('DELETE FROM vaults WHERE id = $1', [id]);
      }, vaultId);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', detail: 'The vault does not exist.' });
      expect(await records(vaultId)).toEqual([]);
      expect((await t.outbox('vault.record.created.v1')).filter((e) => e.vault_id === vaultId)).toEqual([]);
    });
  });

  describe('a record that changes between the access read and the write', () => {
    const path = (vaultId: string, recordId: string) => `/vault/vault-id/${vaultId}/records/record-id/${recordId}`;
    const meanwhile = (recordId: string) =>
      t.sql(`UPDATE records SET name = 'Meanwhile', storage_location = 'Meanwhile', version = version + 1 WHERE id = $1`, [
        recordId,
      ]);

    it('without If-Match: the last writer wins in one statement, the fields its body leaves out keep the row they find', async () => {
      const vaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const body = recordBody({ name: 'Mine' });
      delete body.storageLocation;
      const res = await changedAfterAccessRead(meanwhile, () =>
        counted(() => t.put(owner, path(vaultId, recordId), body).expect(200)),
      );
      expect(res).toHaveLength(2);
      expect(await t.sql('SELECT name, storage_location, version FROM records WHERE id = $1', [recordId])).toEqual([
        { name: 'Mine', storage_location: 'Meanwhile', version: 3 },
      ]);
      await changeEvent(recordId, 'Mine');
    });

    it('with If-Match "*": changed under the row lock, its outbox row sent with the COMMIT, its values written in exactly', async () => {
      const vaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const updated = await changedAfterAccessRead(meanwhile, () =>
        counted(() =>
          t
            .put(owner, path(vaultId, recordId), recordBody({ name: awkwardName }))
            .set('If-Match', '*')
            .expect(200),
        ),
      );
      // the access read, the one-statement change refused on the version, then begin, the
      // locking read, the update, the outbox row with the commit
      expect(updated).toHaveLength(6);
      expect(updated[1]).toMatch(/^WITH changed AS \(UPDATE records .* AND version = \$3 RETURNING version\)/);
      expect(updated[3]).toMatch(/FROM records WHERE id = \$1 AND vault_id = \$2 .*FOR UPDATE$/);
      expect(updated.at(-1)).toMatch(/^INSERT INTO "outbox_events" .*\);\s*COMMIT$/);
      const [row] = await t.sql<{ version: number; storage_location: string }>(
        'SELECT version, storage_location FROM records WHERE id = $1',
        [recordId],
      );
      expect(row).toEqual({ version: 3, storage_location: 'Desk drawer' });
      await changeEvent(recordId, awkwardName);
    });

    it('is 412 when If-Match names the version the access read saw, and nothing is written', async () => {
      const vaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const etag = (await t.get(owner, path(vaultId, recordId)).expect(200)).headers.etag as string;
      const res = await changedAfterAccessRead(meanwhile, () =>
        t
          .put(owner, path(vaultId, recordId), recordBody({ name: 'Lost' }))
          .set('If-Match', etag)
          .expect(412),
      );
      expect(res.body.code).toBe('precondition_failed');
      expect(await t.sql('SELECT name, version FROM records WHERE id = $1', [recordId])).toEqual([
        { name: 'Meanwhile', version: 2 },
      ]);
      expect((await t.outbox('vault.record.updated.v1')).filter((e) => e.payload.record.id === recordId)).toEqual([]);
    });

    it.each([
      // neither changes the version: each is refused by its own condition of the one statement
      [
        'deleted',
        `UPDATE records SET status_before_delete = status, status = 'DELETED', active = false, deleted_at = now(),
                deleted_by = 'someone', purge_at = now() + interval '30 days' WHERE id = $1`,
      ],
      ['moved to another vault', `UPDATE records SET vault_id = $2 WHERE id = $1`],
    ])('is 404 when the record was %s meanwhile, and nothing is written', async (_, change) => {
      const vaultId = await t.createVault(owner);
      const otherVaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const res = await changedAfterAccessRead(
        (id) => t.sql(change, change.includes('$2') ? [id, otherVaultId] : [id]),
        () => t.put(owner, path(vaultId, recordId), recordBody({ name: 'Lost' })).expect(404),
      );
      expect(res.body).toMatchObject({ code: 'not_found', detail: 'The record does not exist.' });
      expect(await t.sql('SELECT name, version FROM records WHERE id = $1', [recordId])).toEqual([
        { name: 'My passport', version: 1 },
      ]);
      expect((await t.outbox('vault.record.updated.v1')).filter((e) => e.payload.record.id === recordId)).toEqual([]);
    });
  });

  it('creates a vault with the same number of statements whatever the caller already owns', async () => {
    const caller = await t.caller();
    const first = await counted(() => t.createVault(caller));
    for (let i = 0; i < 4; i++) await t.createVault(caller);
    const sixth = await counted(() => t.createVault(caller));
    // one more statement: the plans of the five owned vaults, read together
    expect(sixth.length).toBe(first.length + 1);
  });

  it('keeps the counter equal to the live records under concurrent creates, deletes and transfers', async () => {
    const a = await t.createVault(owner);
    const b = await t.createVault(owner);
    const seeded = await Promise.all(Array.from({ length: 8 }, () => t.createRecord(owner, a)));
    const changes = [
      ...Array.from({ length: 6 }, () => t.post(owner, `/vault/vault-id/${a}/records`, recordBody())),
      ...Array.from({ length: 6 }, () => t.post(owner, `/vault/vault-id/${b}/records`, recordBody())),
      ...seeded.slice(0, 3).map((id) => t.delete(owner, `/vault/vault-id/${a}/records/record-id/${id}`)),
      ...seeded
        .slice(3, 6)
        .map((id) => t.put(owner, `/vault/vault-id/${a}/records/record-id/${id}/transfer`, { destinationVaultId: b })),
    ];
    const results = await Promise.all(changes);
    expect(results.filter((r) => r.status >= 300)).toEqual([]);
    for (const v of [a, b]) expect(await liveCounter(v)).toBe(await liveCount(v));
    expect([await liveCounter(a), await liveCounter(b)]).toEqual([8 + 6 - 3 - 3, 6 + 3]);
  });

  it('holds the record quota from the counter under a race for the last places', async () => {
    const vaultId = await t.createVault(owner);
    await Promise.all(Array.from({ length: 18 }, () => t.createRecord(owner, vaultId)));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody())),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 409, 409, 409, 409]);
    expect(await liveCounter(vaultId)).toBe(20);
    expect(await liveCount(vaultId)).toBe(20);
  });

  it('gives existing vaults their count when the counter is introduced', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const vaultId = await t.createVault(owner);
    for (let i = 0; i < 3; i++) await t.createRecord(owner, vaultId);
    const migration = ds.migrations.find((m) => m.name === 'LiveRecordCounter1763800000300');
    if (!migration) throw new Error('the counter migration is not registered');
    const runner = ds.createQueryRunner();
    try {
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await liveCounter(vaultId)).toBe(3);
  });
});
