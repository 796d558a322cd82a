import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SUBJECTS } from '@vault/contracts';
import { meta, upload } from './files-support';
import { Caller, recordBody, RecordsTestApp } from './support';

describe('records', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  const base = () => `/vault/vault-id/${vaultId}/records`;

  let fileDir: string;

  beforeAll(async () => {
    fileDir = mkdtempSync(join(tmpdir(), 'records-files-'));
    t = await RecordsTestApp.start('records_records', { FILE_STORAGE: 'fs', FILE_STORAGE_DIR: fileDir });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'owner-user');
    vaultId = await t.createVault(owner, { name: 'Home' });
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(fileDir, { recursive: true, force: true });
  });

  describe('POST records', () => {
    it('creates a record (200 {id}), the caller becomes rec_owner, an event is written', async () => {
      const res = await t.post(owner, base(), recordBody()).expect(200);
      expect(Object.keys(res.body)).toEqual(['id']);
      const [row] = await t.sql('SELECT * FROM records WHERE id = $1', [res.body.id]);
      expect(row).toMatchObject({ vault_id: vaultId, status: 'ACTIVE', active: true, created_by: owner.openId });
      expect(await t.sql('SELECT role FROM record_memberships WHERE record_id = $1', [res.body.id])).toEqual([
        { role: 'rec_owner' },
      ]);
      const [event] = (await t.outbox(SUBJECTS.recordCreated)).filter((e) => e.payload.record.id === res.body.id);
      expect(event.payload).toMatchObject({
        actor: { openId: owner.openId, username: 'owner-user' },
        vault: { id: vaultId, name: 'Home' },
        record: { id: res.body.id, name: 'My passport' },
        recordTypeName: 'identityDocs',
      });
    });

    it('accepts an empty description, read-only echoes and recordDetails as a JSON string', async () => {
      const id = await t.createRecord(owner, vaultId, {
        description: '',
        lastModifiedBy: null,
        updatedAt: null,
        status: null,
        recordDetails: '{"plate":"ABC 123"}',
      });
      const res = await t.get(owner, `${base()}/record-id/${id}`).expect(200);
      expect(res.body).toMatchObject({
        description: '',
        status: 'ACTIVE',
        recordDetails: { plate: 'ABC 123', cloudStorageFolder: [] },
      });
    });

    it('needs recordSubtypeOther for the other subtype and keeps it', async () => {
      const body = recordBody({ recordTypeName: 'collectibles', recordSubtypeName: 'other' });
      const res = await t.post(owner, base(), body).expect(400);
      expect([...new Set(res.body.errors.map((e: { field: string }) => e.field))]).toEqual(['recordSubtypeOther']);
      const id = await t.createRecord(owner, vaultId, { ...body, recordSubtypeOther: 'Vinyl records' });
      expect((await t.get(owner, `${base()}/record-id/${id}`)).body.recordSubtypeOther).toBe('Vinyl records');
    });

    it.each([
      ['no name', { name: undefined }, 'name'],
      ['no description', { description: undefined }, 'description'],
      ['no recordTypeName', { recordTypeName: undefined }, 'recordTypeName'],
      ['no recordSubtypeName', { recordSubtypeName: undefined }, 'recordSubtypeName'],
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['an unknown type', { recordTypeName: 'spaceships' }, 'recordTypeName'],
      ['a subtype of another type', { recordSubtypeName: 'antiques' }, 'recordSubtypeName'],
      ['recordDetails not an object', { recordDetails: 42 }, 'recordDetails'],
      ['editable not a boolean', { editable: 'yes' }, 'editable'],
    ])('refuses %s with 400 and writes nothing', async (_, change, field) => {
      const before = await t.snapshot();
      const res = await t.post(owner, base(), recordBody(change)).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await t.snapshot()).toBe(before);
    });
  });

  describe('GET record', () => {
    it('returns the full lookup shape', async () => {
      const id = await t.createRecord(owner, vaultId, { recordTypeName: 'transportation', recordSubtypeName: 'licensePlates' });
      const res = await t.get(owner, `${base()}/record-id/${id}`).expect(200);
      expect(res.body).toEqual({
        id,
        name: 'My passport',
        description: 'Blue cover',
        uniqueReference: '20260101120000',
        storageLocation: 'Desk drawer',
        recordSubtypeOther: null,
        editable: true,
        status: 'ACTIVE',
        active: true,
        lastModifiedBy: 'owner-user',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        recordDetails: { number: 'X123', country: 'CA', cloudStorageFolder: [] },
        recordSubtype: {
          id: expect.any(String),
          name: 'licensePlates',
          logo: expect.stringMatching(/^https:/),
          orderId: expect.any(Number),
          displayValue: expect.arrayContaining([{ locale: 'en-CA', value: 'Licence Plates' }]),
          blockSections: {
            blockDescription: true,
            blockFiles: true,
            blockLinkedRecords: true,
            blockCollaborators: true,
            blockSpecificFields: true,
          },
        },
        recordType: {
          id: expect.any(String),
          name: 'transportation',
          logo: expect.stringMatching(/^https:/),
          orderId: 7,
          vaultType: 'individual',
          displayValue: expect.arrayContaining([{ locale: 'es-US', value: 'Transporte' }]),
        },
        filesHistory: [],
        userVaultRole: ['vault_owner'],
        userRecordRole: ['rec_owner'],
      });
    });

    it("lists the record's files in filesHistory, newest upload first", async () => {
      const id = await t.createRecord(owner, vaultId);
      const other = await t.createRecord(owner, vaultId);
      const files = [
        { bytes: randomBytes(300), meta: meta('260101120000_a.pdf', { correlationId: 'c1', uploadTitle: 'Scans' }) },
        {
          bytes: randomBytes(200),
          meta: meta('260101120100_b.png', { correlationId: 'c2', uploadTitle: 'Photos', fileType: 'image', caption: 'Front' }),
          contentType: 'image/png',
          filename: 'b.png',
        },
        { bytes: randomBytes(100), meta: meta('260101120100_c.pdf', { correlationId: 'c2', uploadTitle: 'Photos' }) },
      ];
      for (const f of files) await upload(t, owner, vaultId, id, f).expect(201);
      await upload(t, owner, vaultId, other, { meta: meta('260101120000_other.pdf') }).expect(201);

      const res = await t.get(owner, `${base()}/record-id/${id}`).expect(200);
      const entry = (name: string, size: number, extra: Record<string, unknown>) => ({
        cloaudStorage: false,
        active: true,
        fileName: name,
        caption: null,
        fileType: 'document',
        fileUrl: `/vault/vault-id/${vaultId}/records/record-id/${id}/record-files/${encodeURIComponent(name)}`,
        uploader: 'owner-user',
        fileSize: size,
        updatedAt: expect.any(String),
        ...extra,
      });
      expect(res.body.filesHistory).toEqual([
        entry('260101120100_c.pdf', 100, { correlationId: 'c2', uploadTitle: 'Photos' }),
        entry('260101120100_b.png', 200, { correlationId: 'c2', uploadTitle: 'Photos', fileType: 'image', caption: 'Front' }),
        entry('260101120000_a.pdf', 300, { correlationId: 'c1', uploadTitle: 'Scans' }),
      ]);
      const editor = await t.caller('tenant-a', 'editor-user');
      await t.grantVaultRole(vaultId, editor, 'vault_editor');
      const seen = await t.get(editor, `${base()}/record-id/${id}`).expect(200);
      expect(seen.body.filesHistory.map((f: { fileName: string }) => f.fileName)).toEqual(
        res.body.filesHistory.map((f: { fileName: string }) => f.fileName),
      );
    });

    it('answers 404 for unknown and malformed record ids', async () => {
      await t.get(owner, `${base()}/record-id/00000000-0000-4000-8000-000000000000`).expect(404);
      await t.get(owner, `${base()}/record-id/not-a-uuid`).expect(404);
    });
  });

  describe('GET records (search)', () => {
    let passport: string;
    let plates: string;
    let vinyl: string;
    beforeEach(async () => {
      passport = await t.createRecord(owner, vaultId, { name: 'Passport 100%', uniqueReference: 'ref-1' });
      plates = await t.createRecord(owner, vaultId, {
        name: 'Car plates',
        recordTypeName: 'transportation',
        recordSubtypeName: 'licensePlates',
        uniqueReference: 'ref-2',
      });
      vinyl = await t.createRecord(owner, vaultId, {
        name: 'Vinyl',
        recordTypeName: 'collectibles',
        recordSubtypeName: 'other',
        recordSubtypeOther: 'Vinyl records',
      });
    });
    const ids = (body: { id: string }[]) => body.map((r) => r.id).sort();
    const search = async (q: string) => (await t.get(owner, `${base()}?${q}`).expect(200)).body;

    it('returns search items of every live record', async () => {
      const all = await search('');
      expect(ids(all)).toEqual([passport, plates, vinyl].sort());
      const item = all.find((r: { id: string }) => r.id === plates);
      expect(item).toEqual({
        id: plates,
        name: 'Car plates',
        storageLocation: 'Desk drawer',
        recordSubtypeOther: null,
        description: 'Blue cover',
        recordSubtype: {
          id: expect.any(String),
          name: 'licensePlates',
          logo: expect.any(String),
          displayValue: expect.any(Array),
        },
        recordType: { id: expect.any(String), name: 'transportation', logo: expect.any(String), displayValue: expect.any(Array) },
        status: 'ACTIVE',
        updatedAt: expect.any(String),
        lastModifiedBy: 'owner-user',
        contributors: [owner.openId],
        contributorDetails: [{ openId: owner.openId, firstName: null, lastName: null, role: 'rec_owner' }],
        editable: true,
      });
      expect(item.recordType.displayValue).toHaveLength(4);
    });

    it('filters by every query parameter', async () => {
      const plate = (await t.get(owner, `${base()}/record-id/${plates}`)).body;
      expect(ids(await search('name=car'))).toEqual([plates]);
      expect(ids(await search('name=100%25'))).toEqual([passport]);
      expect(ids(await search('name=%25'))).toEqual([passport]);
      expect(ids(await search('uniqueReference=ref-1'))).toEqual([passport]);
      expect(ids(await search('recordTypeName=transportation'))).toEqual([plates]);
      expect(ids(await search('recordSubtypeName=other'))).toEqual([vinyl]);
      expect(ids(await search('recordSubtypeOther=vinyl'))).toEqual([vinyl]);
      expect(ids(await search(`recordTypeId=${plate.recordType.id}`))).toEqual([plates]);
      expect(ids(await search(`recordSubtypeId=${plate.recordSubtype.id}`))).toEqual([plates]);
      expect(ids(await search('status=ACTIVE&recordTypeName=collectibles'))).toEqual([vinyl]);
      const es = await search('locale=es-US&recordTypeName=transportation');
      expect(es[0].recordType.displayValue).toEqual([{ locale: 'es-US', value: 'Transporte' }]);
    });

    it('answers [] when nothing matches', async () => {
      expect(await search('name=zzz')).toEqual([]);
      expect(await search('recordTypeName=nothing')).toEqual([]);
      expect(await search('recordSubtypeName=nothing')).toEqual([]);
      expect(await search('status=DRAFT')).toEqual([]);
    });

    it.each([['status=GONE'], ['locale=fr-CA'], ['recordTypeId=abc'], ['unknown=1']])('refuses %s with 400', async (q) => {
      await t.get(owner, `${base()}?${q}`).expect(400);
    });
  });

  describe('PUT record', () => {
    it('updates the record (200 {id}) and writes an update event', async () => {
      const id = await t.createRecord(owner, vaultId);
      const editor = await t.caller('tenant-a', 'editor-user');
      await t.grantVaultRole(vaultId, editor, 'vault_editor');
      const res = await t
        .put(
          editor,
          `${base()}/record-id/${id}`,
          recordBody({
            name: 'Renewed passport',
            recordDetails: { number: 'Y999' },
            storageLocation: null,
            uniqueReference: undefined,
            status: 'CLOSED',
            lastModifiedBy: 'someone',
          }),
        )
        .expect(200);
      expect(res.body).toEqual({ id });
      const view = (await t.get(owner, `${base()}/record-id/${id}`)).body;
      expect(view).toMatchObject({
        name: 'Renewed passport',
        storageLocation: null,
        uniqueReference: '20260101120000',
        status: 'ACTIVE',
        lastModifiedBy: 'editor-user',
        recordDetails: { number: 'Y999', cloudStorageFolder: [] },
      });
      const events = (await t.outbox(SUBJECTS.recordUpdated)).filter((e) => e.payload.record.id === id);
      expect(events.map((e) => e.payload.record.name)).toEqual(['Renewed passport']);
    });

    it('validates like create and changes nothing on 400', async () => {
      const id = await t.createRecord(owner, vaultId);
      const before = await t.snapshot();
      await t.put(owner, `${base()}/record-id/${id}`, recordBody({ recordSubtypeName: 'nope' })).expect(400);
      await t.put(owner, `${base()}/record-id/${id}`, recordBody({ name: '' })).expect(400);
      expect(await t.snapshot()).toBe(before);
    });
  });

  describe('DELETE record', () => {
    it('marks the record DELETED: gone from lookups, searches and counts, visible with status=DELETED', async () => {
      const id = await t.createRecord(owner, vaultId);
      const res = await t.delete(owner, `${base()}/record-id/${id}`).expect(200);
      expect(res.text).toBe('');
      const [row] = await t.sql('SELECT status, active FROM records WHERE id = $1', [id]);
      expect(row).toEqual({ status: 'DELETED', active: false });
      await t.get(owner, `${base()}/record-id/${id}`).expect(404);
      await t.put(owner, `${base()}/record-id/${id}`, recordBody()).expect(404);
      await t.delete(owner, `${base()}/record-id/${id}`).expect(404);
      expect((await t.get(owner, base()).expect(200)).body).toEqual([]);
      const deleted = (await t.get(owner, `${base()}?status=DELETED`).expect(200)).body;
      expect(deleted.map((r: { id: string }) => r.id)).toEqual([id]);
      expect((await t.outbox(SUBJECTS.recordDeleted)).filter((e) => e.payload.record.id === id)).toHaveLength(1);
    });
  });

  describe('roles on records', () => {
    it('lets viewers read but not write; rec_editor edits its record but cannot delete it', async () => {
      const id = await t.createRecord(owner, vaultId);
      const viewer = await t.caller();
      await t.grantVaultRole(vaultId, viewer, 'vault_viewer');
      await t.get(viewer, base()).expect(200);
      await t.get(viewer, `${base()}/record-id/${id}`).expect(200);
      await t.post(viewer, base(), recordBody()).expect(403);
      await t.put(viewer, `${base()}/record-id/${id}`, recordBody()).expect(403);
      await t.delete(viewer, `${base()}/record-id/${id}`).expect(403);

      const recEditor = await t.caller();
      await t.grantRecordRole(id, recEditor, 'rec_editor');
      const view = await t.get(recEditor, `${base()}/record-id/${id}`).expect(200);
      expect(view.body).toMatchObject({ userVaultRole: [], userRecordRole: ['rec_editor'] });
      await t.put(recEditor, `${base()}/record-id/${id}`, recordBody({ name: 'By rec editor' })).expect(200);
      await t.delete(recEditor, `${base()}/record-id/${id}`).expect(403);
      // a record role shows the vault (docs/records-api.md, Roles) with its own records only
      const found = (await t.get(recEditor, base()).expect(200)).body;
      expect(found.map((r: { id: string }) => r.id)).toEqual([id]);
      await t.get(recEditor, `/vault/vault-id/${vaultId}`).expect(200);
      await t.get(recEditor, `/vault/vault-id/${vaultId}/licenses`).expect(403);
      const other = await t.createRecord(owner, vaultId);
      await t.get(recEditor, `${base()}/record-id/${other}`).expect(404);

      const info = await t.caller();
      await t.grantVaultRole(vaultId, info, 'vault_info');
      await t.get(info, `/vault/vault-id/${vaultId}/home`).expect(200);
      // names and metadata: the search, not the lookup
      await t.get(info, base()).expect(200);
      await t.get(info, `${base()}/record-id/${id}`).expect(403);
      await t.get(info, `/vault/vault-id/${vaultId}/licenses`).expect(403);
    });

    it('lets a rec_owner without a vault role delete its record', async () => {
      const id = await t.createRecord(owner, vaultId);
      const recOwner = await t.caller();
      await t.grantRecordRole(id, recOwner, 'rec_owner');
      await t.delete(recOwner, `${base()}/record-id/${id}`).expect(200);
    });
  });

  describe('PUT record transfer', () => {
    it('moves the record with its roles to another vault of the caller', async () => {
      const id = await t.createRecord(owner, vaultId);
      const helper = await t.caller();
      await t.grantRecordRole(id, helper, 'rec_viewer');
      const dest = await t.createVault(owner, { name: 'Office' });
      const res = await t.put(owner, `${base()}/record-id/${id}/transfer`, { destinationVaultId: dest }).expect(200);
      expect(res.text).toBe('');
      await t.get(owner, `${base()}/record-id/${id}`).expect(404);
      const moved = await t.get(owner, `/vault/vault-id/${dest}/records/record-id/${id}`).expect(200);
      expect(moved.body.userRecordRole).toEqual(['rec_owner']);
      await t.get(helper, `/vault/vault-id/${dest}/records/record-id/${id}`).expect(200);
      const [event] = (await t.outbox(SUBJECTS.recordTransferred)).filter((e) => e.payload.record.id === id);
      expect(event.payload).toMatchObject({ vault: { id: vaultId }, destinationVault: { id: dest, name: 'Office' } });
    });

    it('lets an editor of both vaults transfer; a viewer of the destination gets 403', async () => {
      const id = await t.createRecord(owner, vaultId);
      const dest = await t.createVault(owner);
      const editor = await t.caller();
      await t.grantVaultRole(vaultId, editor, 'vault_editor');
      await t.grantVaultRole(dest, editor, 'vault_viewer');
      const before = await t.snapshot();
      await t.put(editor, `${base()}/record-id/${id}/transfer`, { destinationVaultId: dest }).expect(403);
      expect(await t.snapshot()).toBe(before);
      await t.sql(`UPDATE vault_memberships SET role = 'vault_editor' WHERE vault_id = $1 AND open_id = $2`, [
        dest,
        editor.openId,
      ]);
      await t.put(editor, `${base()}/record-id/${id}/transfer`, { destinationVaultId: dest }).expect(200);
    });

    it.each([
      ['no destinationVaultId', {}, 400],
      ['an unknown field', { destinationVaultId: 'x', extra: 1 }, 400],
      ['a malformed destination', { destinationVaultId: 'x' }, 404],
      ['an unknown destination', { destinationVaultId: '00000000-0000-4000-8000-000000000000' }, 404],
    ])('refuses %s and changes nothing', async (_, body, status) => {
      const id = await t.createRecord(owner, vaultId);
      const before = await t.snapshot();
      await t.put(owner, `${base()}/record-id/${id}/transfer`, body).expect(status);
      expect(await t.snapshot()).toBe(before);
    });

    it('answers 404 for a deleted record', async () => {
      const id = await t.createRecord(owner, vaultId);
      const dest = await t.createVault(owner);
      await t.delete(owner, `${base()}/record-id/${id}`).expect(200);
      await t.put(owner, `${base()}/record-id/${id}/transfer`, { destinationVaultId: dest }).expect(404);
      const [row] = await t.sql('SELECT vault_id FROM records WHERE id = $1', [id]);
      expect(row.vault_id).toBe(vaultId);
    });

    it('refuses the record own vault as destination with 400', async () => {
      const id = await t.createRecord(owner, vaultId);
      await t.put(owner, `${base()}/record-id/${id}/transfer`, { destinationVaultId: vaultId }).expect(400);
    });

    it('answers 404 for a record that is not in the path vault', async () => {
      const dest = await t.createVault(owner);
      await t
        .put(owner, `${base()}/record-id/00000000-0000-4000-8000-000000000000/transfer`, { destinationVaultId: dest })
        .expect(404);
      await t.put(owner, `${base()}/record-id/nope/transfer`, { destinationVaultId: dest }).expect(404);
    });
  });
});
