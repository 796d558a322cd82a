import { SUBJECTS } from '@vault/contracts';
import { waitFor } from './activity-log.harness';
import { RecordsProcesses } from './records-process';

const ITEMS = 120;

/**
 * The purger killed with SIGKILL while it works (docs/records-api.md, Trash): every item is
 * afterwards either whole in the trash with no `record.purged` event, or gone with exactly
 * one; a new process finishes the rest.
 */
describe('trash purger killed mid-purge', () => {
  let procs: RecordsProcesses;

  beforeAll(async () => {
    procs = await RecordsProcesses.create('records_trash_kill', { TRASH_PURGE_INTERVAL_MS: '100' });
  });
  afterAll(() => procs?.dispose());

  /** Record ids still in the database, and the purged events per record id. */
  const state = async (ids: string[]) => {
    const rows = await procs.sql<{ id: string; trashed: boolean }>(
      'SELECT id, deleted_at IS NOT NULL AS trashed FROM records WHERE id = ANY($1)',
      [ids],
    );
    const events = await procs.sql<{ id: string; n: string }>(
      `SELECT payload->'record'->>'id' AS id, count(*) AS n FROM outbox_events WHERE subject = $1 GROUP BY 1`,
      [SUBJECTS.recordPurged],
    );
    return { rows, purged: new Map(events.map((e) => [e.id, Number(e.n)])) };
  };

  it('leaves every item whole or gone, never half, and a restarted purger finishes', async () => {
    const purger = await procs.start();
    const owner = await procs.caller();
    const vaultId = await procs.createVault(purger, owner);
    const seed = await procs.createRecord(purger, owner, vaultId, 'seed');
    // many trashed records, copies of the seed record, not due yet
    const rows = await procs.sql<{ id: string }>(
      `INSERT INTO records (tenant_id, vault_id, name, description, record_type_id, record_subtype_id, status, active,
                            created_by, last_modified_by, deleted_at, deleted_by, purge_at, status_before_delete)
       SELECT tenant_id, vault_id, name || g, description, record_type_id, record_subtype_id, 'DELETED', false,
              created_by, last_modified_by, now(), 'test', now() + interval '1 day', 'ACTIVE'
         FROM records, generate_series(1, ${ITEMS}) g WHERE id = $1
       RETURNING id`,
      [seed],
    );
    const ids = rows.map((r) => r.id);

    // all due at once: the running purger takes them in batches, and is killed while it works
    await procs.sql(`UPDATE records SET purge_at = now() - interval '1 minute' WHERE id = ANY($1)`, [ids]);
    await waitFor(async () => (await state(ids)).purged.size > 0, 30_000, 'a first purge');
    await procs.stop(purger, 'SIGKILL');

    const after = await state(ids);
    const remaining = new Set(after.rows.map((r) => r.id));
    expect(after.rows.every((r) => r.trashed)).toBe(true);
    for (const id of ids) {
      expect([id, after.purged.get(id) ?? 0]).toEqual([id, remaining.has(id) ? 0 : 1]);
    }

    const again = await procs.start();
    try {
      await waitFor(async () => (await state(ids)).rows.length === 0, 30_000, 'every item purged');
    } finally {
      await procs.stop(again);
    }
    const done = await state(ids);
    expect(ids.map((id) => done.purged.get(id))).toEqual(ids.map(() => 1));
  }, 180_000);
});
