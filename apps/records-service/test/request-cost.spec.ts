import { getDataSourceToken } from '@nestjs/typeorm';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { Caller, recordBody, RecordsTestApp, writePlansFile } from './support';

/**
 * What a request costs the database, and the live-record counter that spares the record
 * quota a COUNT: statements per request are counted at the pg client (whether TypeORM's
 * query runner sends them or a prepared statement on its pool), and the
 * counter is compared with the records it stands for after concurrent changes.
 */
describe('request cost and the live-record counter', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let statements: string[] = [];

  beforeAll(async () => {
    const plans = writePlansFile({ free: { 'vault.maxVaultRecords': '20', 'account.maxOwnedVaults': '20' } });
    t = await RecordsTestApp.start('records_cost', { VAULT_PLANS_FILE: plans });
    owner = await t.caller();
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      statements.push(String(text).replace(/\s+/g, ' ').trim());
      return query.apply(this, args);
    } as typeof Client.prototype.query);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.stop();
  });

  async function counted<T>(run: () => Promise<T>): Promise<string[]> {
    statements = [];
    await run();
    const seen = statements;
    statements = [];
    return seen;
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
    // creates into one vault queue only for the commit: the vault row is locked by the
    // counter's conditional increment, the last statement, sent in one message with the
    // COMMIT, and never FOR UPDATE before
    expect(created.filter((s) => /FROM "vaults".*FOR UPDATE/.test(s))).toEqual([]);
    expect(created.at(-1)).toMatch(new RegExp(`^SELECT vault_claim_record_place\\('${vaultId}'::uuid, \\d+\\);\\s*COMMIT$`));
    expect(created.filter((s) => /^COMMIT$/i.test(s.trim()))).toEqual([]);
    // the record with its owner role in one INSERT, nothing read back: the access read, begin,
    // record and role, outbox row, the vault's licence, the counter with the commit
    expect(created.filter((s) => /^SELECT/i.test(s) && /FROM "?records"?\b/.test(s))).toEqual([]);
    expect(created).toHaveLength(6);
    const recordId = await t.createRecord(owner, vaultId);
    const updated = await counted(() =>
      t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name: 'Renamed' })).expect(200),
    );
    const recordReads = updated.filter((s) => /^SELECT/i.test(s) && /FROM "?records"?\b/.test(s));
    expect(recordReads).toHaveLength(1); // the locking read, nothing else
    expect(recordReads[0]).toMatch(/FOR UPDATE/);
    const [row] = await t.sql<{ name: string }>('SELECT name FROM records WHERE id = $1', [recordId]);
    expect(row.name).toBe('Renamed');
  });

  it("changes a record with its event's outbox row sent with the COMMIT, its values written in exactly", async () => {
    const vaultId = await t.createVault(owner);
    const recordId = await t.createRecord(owner, vaultId);
    const name = `O'Brien \\ "Ümläut" ${'\u{1F4C4}'} $1 \\'; DROP TABLE records; --`;
    const updated = await counted(() =>
      t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name })).expect(200),
    );
    expect(updated.at(-1)).toMatch(/^INSERT INTO "outbox_events" .*\);\s*COMMIT$/);
    expect(updated.filter((s) => /^COMMIT$/i.test(s.trim()))).toEqual([]);
    // the access read, begin, the locking read, the update, the outbox row with the commit
    expect(updated).toHaveLength(5);
    const [event] = (await t.outbox('vault.record.updated.v1')).filter((e) => e.payload.record.id === recordId);
    expect(event.payload.record.name).toBe(name);
    expect(event).toMatchObject({ vault_id: vaultId, published_at: null });
    const [row] = await t.sql<{ name: string; occurred: boolean }>(
      `SELECT r.name, o.occurred_at = (o.payload->>'occurredAt')::timestamptz AS occurred
         FROM records r, outbox_events o WHERE r.id = $1 AND o.id = $2`,
      [recordId, event.id],
    );
    expect(row).toEqual({ name, occurred: true });
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
