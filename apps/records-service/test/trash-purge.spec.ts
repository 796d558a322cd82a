import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { SUBJECTS } from '@vault/contracts';
import { TrashPurger } from '../src/features/trash/trash.purger';
import { VaultDeletionPurger } from '../src/features/vaults/vault-deletion.purger';
import { meta, upload } from './files-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Retention, legal holds and the background purger (docs/records-api.md, Retention and
 * legal holds; Trash): what keeps an item from purge, several purgers at once, and a purge
 * that fails half-way leaving nothing half-done.
 */
describe('trash purge, retention and legal holds', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let officer: Caller;
  let vaultId: string;
  const dir = mkdtempSync(join(tmpdir(), 'trash-purge-files-'));

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_trash_purge', {
      TRASH_PURGER: 'off',
      FILE_STORAGE_DIR: dir,
      // premium vaults keep records and files 30 days after creation; family vaults trash for 7 days
      VAULT_PLANS_FILE: writePlansFile({ premium: { 'vault.retentionDays': '30' }, family: { 'vault.trashDays': '7' } }),
    });
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    owner = await t.caller();
    const sub = `vault|compliance-${owner.openId.slice(6, 14)}`;
    officer = { ...(await t.caller()), openId: sub };
    officer.token = await t.idp.token({ sub, tid: 'tenant-a', username: 'legal', roles: ['compliance'] });
    vaultId = await t.createVault(owner);
  });

  const recordUrl = (id: string, v = vaultId) => `/vault/vault-id/${v}/records/record-id/${id}`;
  const purger = (app: INestApplication = t.app) => app.get(TrashPurger);
  const trashedRecord = async (v = vaultId) => {
    const id = await t.createRecord(owner, v);
    await t.delete(owner, recordUrl(id, v)).expect(200);
    return id;
  };
  const makeDue = (ids: string[]) => t.sql(`UPDATE records SET purge_at = now() - interval '1 minute' WHERE id = ANY($1)`, [ids]);
  const purgedEvents = async (ids: string[]) =>
    (await t.outbox(SUBJECTS.recordPurged)).filter((e) => ids.includes(e.payload.record.id));

  it('lets only a compliance officer place, list and release holds; a hold refuses every purge with its name', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await t.post(owner, '/legal-holds', { vaultId, recordId, name: 'Case 42' }).expect(403);
    await t.http().post('/api/v1/legal-holds').send({ vaultId, name: 'x' }).expect(401);
    await t.get(owner, '/legal-holds').expect(403);
    const missing = await t.post(officer, '/legal-holds', { vaultId, recordId: vaultId, name: 'x' }).expect(404);
    expect(missing.body).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
    const other = await t.caller('tenant-b');
    const foreign = await t.createVault(other);
    await t.post(officer, '/legal-holds', { vaultId: foreign, name: 'x' }).expect(404);
    const noRecord = await t.post(officer, '/legal-holds', { vaultId, fileId: recordId, name: 'x' }).expect(400);
    expect(noRecord.body.errors).toEqual([expect.objectContaining({ field: 'recordId' })]);
    await t.post(officer, '/legal-holds', { vaultId, name: '' }).expect(400);

    const placed = await t.post(officer, '/legal-holds', { vaultId, recordId, name: 'Case 42', reason: 'subpoena' }).expect(201);
    expect(placed.body).toMatchObject({ kind: 'record', vaultId, recordId, fileId: null, name: 'Case 42', placedBy: 'legal' });
    expect(placed.headers['location']).toBe(`/api/v1/legal-holds/hold-id/${placed.body.id}`);
    expect((await t.get(officer, `/legal-holds/hold-id/${placed.body.id}`).expect(200)).body).toEqual(placed.body);
    await t.get(owner, `/legal-holds/hold-id/${placed.body.id}`).expect(403);
    const listed = await t.get(officer, `/legal-holds?vaultId=${vaultId}`).expect(200);
    expect(listed.body.map((h: { id: string }) => h.id)).toEqual([placed.body.id]);

    // a delete still trashes; a purge by hand, when due, or of the whole vault is refused
    await t.delete(owner, recordUrl(recordId)).expect(200);
    const refused = await t.delete(owner, `/trash/item-id/${recordId}`).expect(409);
    expect(refused.body).toMatchObject({ code: 'legal_hold', detail: expect.stringContaining('Case 42') });
    const retention = await t.get(owner, `/vault/vault-id/${vaultId}/retention`).expect(200);
    expect(retention.body).toMatchObject({
      kind: 'vault',
      purgeBlocked: true,
      holds: [expect.objectContaining({ name: 'Case 42' })],
    });
    await makeDue([recordId]);
    expect(await purger().purgeDue()).toMatchObject({ postponed: 1 });
    const [row] = await t.sql<{ purge_at: Date }>('SELECT purge_at FROM records WHERE id = $1', [recordId]);
    expect(row.purge_at.getTime()).toBeGreaterThan(Date.now() + DAY_MS / 2);
    await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);
    expect((await t.delete(owner, `/trash/item-id/${vaultId}`).expect(409)).body.code).toBe('legal_hold');
    await t.post(owner, `/trash/item-id/${vaultId}/restore`).expect(200);

    await t.delete(owner, `/legal-holds/hold-id/${placed.body.id}`).expect(403);
    const released = await t.delete(officer, `/legal-holds/hold-id/${placed.body.id}`).expect(200);
    expect(released.body).toMatchObject({ releasedBy: 'legal', releasedAt: expect.any(String) });
    await t.delete(officer, `/legal-holds/hold-id/${placed.body.id}`).expect(409);
    await t.delete(officer, `/legal-holds/hold-id/00000000-0000-4000-8000-000000000000`).expect(404);
    expect((await t.get(officer, `/legal-holds?vaultId=${vaultId}`)).body).toEqual([]);
    await t.delete(owner, `/trash/item-id/${recordId}`).expect(200);
  });

  it("refuses a purge before the plan's retention period ends, naming the date, and explains it", async () => {
    const premium = await t.createVault(owner, { licenseKey: 'PREMIUM-DEMO-2026' });
    const recordId = await t.createRecord(owner, premium);
    const explained = await t.get(owner, `${recordUrl(recordId, premium)}/retention`).expect(200);
    expect(explained.body).toMatchObject({ kind: 'record', id: recordId, purgeBlocked: true, retentionDays: 30, holds: [] });
    const until = new Date(explained.body.retainedUntil).getTime();
    expect(Math.abs(until - (Date.now() + 30 * DAY_MS))).toBeLessThan(DAY_MS);
    await t.delete(owner, recordUrl(recordId, premium)).expect(200);
    const refused = await t.delete(owner, `/trash/item-id/${recordId}`).expect(409);
    expect(refused.body).toMatchObject({
      code: 'retention_period',
      detail: expect.stringContaining(explained.body.retainedUntil.slice(0, 10)),
    });
    await makeDue([recordId]);
    await purger().purgeDue();
    const [row] = await t.sql<{ purge_at: Date }>('SELECT purge_at FROM records WHERE id = $1', [recordId]);
    expect(row.purge_at.toISOString()).toBe(explained.body.retainedUntil);
    // the trashed record explains itself too, to the role its delete needed only
    const trashed = await t.get(owner, `/trash/item-id/${recordId}/retention`).expect(200);
    expect(trashed.body).toMatchObject({ kind: 'record', id: recordId, purgeBlocked: true, retentionDays: 30, holds: [] });
    expect(trashed.body.retainedUntil).toBe(explained.body.retainedUntil);
    expect(trashed.body.deletedAt).not.toBeNull();
    const viewer = await t.caller();
    await t.grantVaultRole(premium, viewer, 'vault_viewer');
    expect((await t.get(viewer, `/trash/item-id/${recordId}/retention`).expect(403)).body.code).toBe('forbidden');
    await t.get(await t.caller('tenant-b'), `/trash/item-id/${recordId}/retention`).expect(404);
    await t.get(owner, `/trash/item-id/${vaultId}/retention`).expect(404); // a live item is not in the trash
    await t.http().get(`/api/v1/trash/item-id/${recordId}/retention`).expect(401);
    // a vault without retention explains that nothing keeps it
    const plain = await t.get(owner, `/vault/vault-id/${vaultId}/retention`).expect(200);
    expect(plain.body).toMatchObject({ purgeBlocked: false, retainedUntil: null, retentionDays: 0, holds: [] });
  });

  it("keeps items in the trash for the plan's vault.trashDays", async () => {
    const family = await t.createVault(owner, { licenseKey: 'FAMILY-DEMO-2026' });
    await trashedRecord(family);
    const [item] = (await t.get(owner, `/vault/vault-id/${family}/trash`).expect(200)).body.data;
    expect(new Date(item.purgeAt).getTime() - new Date(item.deletedAt).getTime()).toBe(7 * DAY_MS);
  });

  it('purges due items once each with several purgers at once', async () => {
    // copies of one trashed record, written in one statement (cheap on a loaded machine)
    const seed = await trashedRecord();
    const copies = await t.sql<{ id: string }>(
      `INSERT INTO records (tenant_id, vault_id, name, description, record_type_id, record_subtype_id, status, active,
                            created_by, last_modified_by, deleted_at, deleted_by, purge_at, status_before_delete)
       SELECT tenant_id, vault_id, name || g, description, record_type_id, record_subtype_id, 'DELETED', false,
              created_by, last_modified_by, now(), 'test', now(), 'ACTIVE'
         FROM records, generate_series(1, 44) g WHERE id = $1
       RETURNING id`,
      [seed],
    );
    const ids = [seed, ...copies.map((r) => r.id)];
    const other = await t.bootInstance({ TRASH_PURGER: 'off' });
    try {
      await makeDue(ids);
      const results = await Promise.all([purger().purgeDue(), purger(other).purgeDue(), purger().purgeDue()]);
      expect(results.reduce((n, r) => n + r.purged, 0)).toBe(ids.length);
    } finally {
      await other.close();
    }
    expect(await t.sql('SELECT id FROM records WHERE id = ANY($1)', [ids])).toEqual([]);
    const events = await purgedEvents(ids);
    expect(events).toHaveLength(ids.length);
    expect(new Set(events.map((e) => e.payload.record.id)).size).toBe(ids.length);
    expect(events[0].payload.actor).toEqual({ openId: 'system', username: 'system (trash retention)' });
  }, 90_000);

  it('leaves nothing half-done when a purge fails between its steps, and finishes on the next round', async () => {
    const ids = [await trashedRecord(), await trashedRecord()];
    await makeDue(ids);
    // the second item's row delete fails after the first item was purged and both events were written
    await t.sql(`CREATE FUNCTION fail_purge() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'crash in the middle of a purge'; END $$`);
    await t.sql(`CREATE TRIGGER fail_purge BEFORE DELETE ON records FOR EACH ROW
      WHEN (OLD.id = '${ids[1]}') EXECUTE FUNCTION fail_purge()`);
    try {
      await expect(purger().purgeDue()).rejects.toThrow(/crash in the middle of a purge/);
      const rows = await t.sql('SELECT id, deleted_at IS NOT NULL AS trashed FROM records WHERE id = ANY($1)', [ids]);
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => r['trashed'])).toBe(true);
      expect(await purgedEvents(ids)).toEqual([]);
    } finally {
      await t.sql('DROP TRIGGER fail_purge ON records');
      await t.sql('DROP FUNCTION fail_purge()');
    }
    expect((await purger().purgeDue()).purged).toBeGreaterThanOrEqual(2);
    expect(await t.sql('SELECT id FROM records WHERE id = ANY($1)', [ids])).toEqual([]);
    expect(await purgedEvents(ids)).toHaveLength(2);
  });

  it('purges file versions the version limit trashed, unless a hold covers the file', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await upload(t, owner, vaultId, recordId, { meta: meta('v.pdf') }).expect(201);
    await upload(t, owner, vaultId, recordId, { meta: meta('v.pdf', { replace: 'true' }) }).expect(201);
    const [old] = await t.sql<{ id: string; file_id: string }>(
      `SELECT v.id, v.file_id FROM file_versions v JOIN record_files f ON f.id = v.file_id
        WHERE f.record_id = $1 AND NOT v.current`,
      [recordId],
    );
    const due = () =>
      t.sql(`UPDATE file_versions SET deleted_at = now(), purge_at = now() - interval '1 minute' WHERE id = $1`, [old.id]);
    const versionRows = () => t.sql('SELECT id FROM file_versions WHERE id = $1', [old.id]);
    await due();
    const hold = await t.post(officer, '/legal-holds', { vaultId, recordId, fileId: old.file_id, name: 'Versions' }).expect(201);
    expect((await purger().purgeDue()).postponed).toBeGreaterThanOrEqual(1);
    expect(await versionRows()).toHaveLength(1);
    await t.delete(officer, `/legal-holds/hold-id/${hold.body.id}`).expect(200);
    await due();
    await purger().purgeDue();
    expect(await versionRows()).toEqual([]);
  });

  it("holds back the removal of a deleted owner's vault until the hold is released", async () => {
    await t.createRecord(owner, vaultId);
    await t.sql(`UPDATE vaults SET deletion_due_at = now() - interval '1 minute' WHERE id = $1`, [vaultId]);
    const hold = await t.post(officer, '/legal-holds', { vaultId, name: 'Estate' }).expect(201);
    const removal = t.app.get(VaultDeletionPurger);
    await removal.purgeDue();
    const [kept] = await t.sql<{ due: Date }>('SELECT deletion_due_at AS due FROM vaults WHERE id = $1', [vaultId]);
    expect(kept.due.getTime()).toBeGreaterThan(Date.now());
    await t.delete(officer, `/legal-holds/hold-id/${hold.body.id}`).expect(200);
    await t.sql(`UPDATE vaults SET deletion_due_at = now() - interval '1 minute' WHERE id = $1`, [vaultId]);
    await removal.purgeDue();
    expect(await t.sql('SELECT id FROM vaults WHERE id = $1', [vaultId])).toEqual([]);
    expect((await t.outbox(SUBJECTS.vaultDeleted)).filter((e) => e.vault_id === vaultId)).toHaveLength(1);
    expect((await t.outbox(SUBJECTS.vaultPurged)).filter((e) => e.vault_id === vaultId)).toHaveLength(1);
  });
});
