import { Client } from 'pg';
import { Caller, recordBody, RecordsTestApp } from './support';

/**
 * A migration run by a newer instance that changes the type of a column the running one's
 * named statements return (real PostgreSQL): the reads keep answering, the statements being
 * prepared again under new names (withStatementName, docs/architecture.md).
 */
describe('named statements after a migration reshaped their result', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let owner: Caller;

  /** Names of the named statements sent since the last `sent.length = 0`. */
  const sent: string[] = [];

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_reshape');
    owner = await t.caller();
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const name = (args[0] as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string') sent.push(name);
      return query.apply(this, args);
    } as typeof Client.prototype.query);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.stop();
  });

  it('answers every read of a record after a column it selects changed type, on every pooled connection', async () => {
    const vaultId = await t.createVault(owner, { name: 'Reshaped' });
    const recordId = await t.createRecord(owner, vaultId);
    const path = `/vault/vault-id/${vaultId}/records/record-id/${recordId}`;
    // prepared on several of the pool's connections
    await Promise.all(Array.from({ length: 8 }, () => t.get(owner, path).expect(200)));

    await t.sql(`ALTER TABLE vaults ALTER COLUMN name TYPE varchar(500)`);
    sent.length = 0;
    const answers = await Promise.all(Array.from({ length: 16 }, () => t.get(owner, path)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    // refused, the reads' statement was prepared again under a new name
    expect(sent.filter((n) => /__\d+$/.test(n))).not.toEqual([]);
    const vault = await t.get(owner, `/vault/vault-id/${vaultId}`).expect(200);
    expect((vault.body as { name: string }).name).toBe('Reshaped');
  });

  it('changes records after a column their transaction reads under lock changed type: the transaction runs again', async () => {
    const vaultId = await t.createVault(owner, { name: 'Rewritten' });
    const ids = await Promise.all(Array.from({ length: 12 }, () => t.createRecord(owner, vaultId)));
    const path = (id: string) => `/vault/vault-id/${vaultId}/records/record-id/${id}`;
    // the lock read and the update prepared on most of the pool's connections
    for (const round of ['First', 'Second'])
      await Promise.all(ids.map((id) => t.put(owner, path(id), recordBody({ name: round })).expect(200)));

    await t.sql(`ALTER TABLE records ALTER COLUMN description TYPE varchar(5000)`);
    sent.length = 0;
    const statuses: number[] = [];
    for (const id of ids) statuses.push((await t.put(owner, path(id), recordBody({ name: 'Third' }))).status);
    expect(statuses).toEqual(ids.map(() => 200));
    // the lock read of a change was refused in a transaction, renamed, and the transaction ran again
    expect(sent).toContain('records_lock_live_write');
    expect(sent.filter((n) => /^records_lock_live_write__\d+$/.test(n))).not.toEqual([]);
    expect((await t.get(owner, path(ids[0])).expect(200)).body).toMatchObject({ name: 'Third' });
    const changes = await t.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE subject LIKE '%record.updated%' AND payload->'record'->>'id' = ANY($1)`,
      [ids],
    );
    // one event per change: a refused run rolled back with its outbox row
    expect(changes[0].n).toBe(ids.length * 3);
  });
});
