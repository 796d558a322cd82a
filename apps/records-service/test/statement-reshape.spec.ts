import { Caller, RecordsTestApp } from './support';

/**
 * A migration run by a newer instance that changes the type of a column the running one's
 * named statements return (real PostgreSQL): the reads keep answering, the statements being
 * prepared again under new names (withStatementName, docs/architecture.md).
 */
describe('named statements after a migration reshaped their result', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_reshape');
    owner = await t.caller();
  });
  afterAll(() => t?.stop());

  it('answers every read of a record after a column it selects changed type, on every pooled connection', async () => {
    const vaultId = await t.createVault(owner, { name: 'Reshaped' });
    const recordId = await t.createRecord(owner, vaultId);
    const path = `/vault/vault-id/${vaultId}/records/record-id/${recordId}`;
    // prepared on several of the pool's connections
    await Promise.all(Array.from({ length: 8 }, () => t.get(owner, path).expect(200)));
    const prepared = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()`;
    expect((await t.sql<{ n: number }>(prepared))[0].n).toBeGreaterThan(1);

    await t.sql(`ALTER TABLE vaults ALTER COLUMN name TYPE varchar(500)`);
    const answers = await Promise.all(Array.from({ length: 16 }, () => t.get(owner, path)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    const vault = await t.get(owner, `/vault/vault-id/${vaultId}`).expect(200);
    expect((vault.body as { name: string }).name).toBe('Reshaped');
  });
});
