import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RECORDS_EVENT_PAYLOADS, SUBJECTS, TRASH_EVENT_PAYLOADS } from '@vault/contracts';
import { Caller, recordBody, RecordsTestApp } from './support';

const PAYLOAD_CLASSES: Record<string, new () => object> = { ...RECORDS_EVENT_PAYLOADS, ...TRASH_EVENT_PAYLOADS };

describe('event outbox', () => {
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_outbox');
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'olga');
  });
  afterAll(() => t?.stop());

  it('writes one valid, unpublished event per change, in order', async () => {
    const start = (await t.outbox()).length;
    const vaultId = await t.createVault(owner, { name: 'Lifecycle' });
    const recordId = await t.createRecord(owner, vaultId);
    await t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name: 'Renamed' })).expect(200);
    const dest = await t.createVault(owner, { name: 'Destination' });
    await t
      .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, { destinationVaultId: dest })
      .expect(200);
    await t.delete(owner, `/vault/vault-id/${dest}/records/record-id/${recordId}`).expect(200);
    await t.put(owner, `/vault/vault-id/${vaultId}`, { name: 'Lifecycle 2' }).expect(201);
    await t.put(owner, `/vault/vault-id/${vaultId}`, { name: 'Lifecycle 2' }).expect(201); // no change, no event
    await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);

    const rows = (await t.outbox()).slice(start);
    expect(rows.map((r) => r.subject)).toEqual([
      SUBJECTS.vaultCreated,
      SUBJECTS.licenseCreated,
      SUBJECTS.recordCreated,
      SUBJECTS.recordUpdated,
      SUBJECTS.vaultCreated,
      SUBJECTS.licenseCreated,
      SUBJECTS.recordTransferred,
      SUBJECTS.recordDeleted,
      SUBJECTS.recordTrashed,
      SUBJECTS.vaultUpdated,
      SUBJECTS.vaultDeleted,
      SUBJECTS.vaultTrashed,
    ]);
    for (const row of rows) {
      const payload = plainToInstance(PAYLOAD_CLASSES[row.subject], row.payload);
      expect([row.subject, validateSync(payload)]).toEqual([row.subject, []]);
      expect(row.published_at).toBeNull();
      expect(row.payload.actor).toEqual({ openId: owner.openId, username: 'olga' });
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows[7].payload).toMatchObject({ vault: { id: dest }, record: { id: recordId, name: 'Renamed' } });
  });

  it('writes no event when the change is refused', async () => {
    const vaultId = await t.createVault(owner);
    const before = (await t.outbox()).length;
    await t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody({ recordTypeName: 'nope' })).expect(400);
    await t.put(owner, `/vault/vault-id/${vaultId}`, { licenseKey: 'NOPE' }).expect(400);
    await t.post(owner, '/vault', { licenseKey: 'NOPE' }).expect(400);
    expect(await t.outbox()).toHaveLength(before);
  });

  it('rolls the event back with a change that fails after the event was written', async () => {
    const vaultId = await t.createVault(owner, { name: 'Undeletable' });
    await t.sql(`
      CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test'; END $$`);
    // a DELETE moves the vault to the trash: an UPDATE of deleted_at
    await t.sql(`CREATE TRIGGER refuse_delete BEFORE UPDATE OF deleted_at ON vaults FOR EACH ROW
      WHEN (OLD.name = 'Undeletable' AND NEW.deleted_at IS NOT NULL) EXECUTE FUNCTION refuse_delete()`);
    try {
      await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(500);
      expect((await t.outbox(SUBJECTS.vaultDeleted)).filter((e) => e.vault_id === vaultId)).toEqual([]);
      await t.get(owner, `/vault/vault-id/${vaultId}`).expect(200);
    } finally {
      await t.sql('DROP TRIGGER refuse_delete ON vaults');
    }
  });

  it('rolls the change back when writing the event fails', async () => {
    const vaultId = await t.createVault(owner);
    await t.sql(`
      CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test'; END $$`);
    await t.sql(`CREATE TRIGGER refuse_event BEFORE INSERT ON outbox_events FOR EACH ROW
      WHEN (NEW.payload->'record'->>'name' = 'Boom') EXECUTE FUNCTION refuse_event()`);
    try {
      await t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody({ name: 'Boom' })).expect(500);
      expect(await t.sql(`SELECT id FROM records WHERE vault_id = $1`, [vaultId])).toEqual([]);
      expect(
        await t.sql(`SELECT * FROM record_memberships m JOIN records r ON r.id = m.record_id WHERE r.vault_id = $1`, [vaultId]),
      ).toEqual([]);
    } finally {
      await t.sql('DROP TRIGGER refuse_event ON outbox_events');
    }
  });
});
