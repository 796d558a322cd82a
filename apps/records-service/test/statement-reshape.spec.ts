import { Caller, recordBody, RecordsTestApp, spyOnStatements, StatementSpy } from './support';

/**
 * A migration run by a newer instance that changes the type of a column the running one's
 * named statements return (real PostgreSQL): the reads keep answering, the statements being
 * prepared again under new names (withStatementName, docs/architecture.md).
 */
describe('named statements after a migration reshaped their result', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let owner: Caller;

  let spy: StatementSpy;
  /** Names of the named statements sent since the last `names()`. */
  const names = () => spy.sent.splice(0).flatMap((s) => (s.name ? [s.name] : []));

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_reshape');
    owner = await t.caller();
    spy = spyOnStatements(t.pg);
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
    names();
    const answers = await Promise.all(Array.from({ length: 16 }, () => t.get(owner, path)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    // refused, the reads' statement was prepared again under a new name
    expect(names().filter((n) => /__\d+$/.test(n))).not.toEqual([]);
    const vault = await t.get(owner, `/vault/vault-id/${vaultId}`).expect(200);
    expect((vault.body as { name: string }).name).toBe('Reshaped');
  });

  it('changes records after a column their transaction reads under lock changed type: the transaction runs again', async () => {
    const vaultId = await t.createVault(owner, { name: 'Rewritten' });
    const ids = await Promise.all(Array.from({ length: 12 }, () => t.createRecord(owner, vaultId)));
    const path = (id: string) => `/vault/vault-id/${vaultId}/records/record-id/${id}`;
    // each change (If-Match: *) finds its record at another version than its access read saw,
    // so it takes the row lock (the one-statement change is refused): the lock read and the
    // update prepared on most of the pool's connections
    spy.after('access_with_record', (values) => t.sql('UPDATE records SET version = version + 1 WHERE id = $1', [values[3]]));
    for (const round of ['First', 'Second'])
      await Promise.all(
        ids.map((id) =>
          t
            .put(owner, path(id), recordBody({ name: round }))
            .set('If-Match', '*')
            .expect(200),
        ),
      );

    await t.sql(`ALTER TABLE records ALTER COLUMN description TYPE varchar(5000)`);
    names();
    const statuses: number[] = [];
    for (const id of ids)
      statuses.push((await t.put(owner, path(id), recordBody({ name: 'Third' })).set('If-Match', '*')).status);
    spy.after('access_with_record', undefined);
    expect(statuses).toEqual(ids.map(() => 200));
    // the lock read of a change was refused in a transaction, renamed, and the transaction ran again
    const sent = names();
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
