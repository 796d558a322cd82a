import type { RecordRole, VaultRole } from '@vault/contracts';
import { Caller } from '../support';
import { SearchTestApp } from './search-support';

/** Roles on the search: every identity finds exactly the files it may download, decided in the query. */
describe('content search: tenants, vaults and record roles (real NATS and PostgreSQL)', () => {
  jest.setTimeout(180_000);
  let s: SearchTestApp;
  let owner: Caller;
  let vault: string;
  let recordA: string;
  let recordB: string;
  const word = 'quillwort';

  beforeAll(async () => {
    // tenant-c indexes nothing (the operator's list); tenants a and b index their vaults
    s = await SearchTestApp.start('access', { SEARCH_OCR: 'off', SEARCH_TENANTS_WITHOUT_INDEXING: 'tenant-x, tenant-c' });
    owner = await s.t.caller('tenant-a');
    vault = await s.t.createVault(owner, { name: 'Family' });
    recordA = await s.t.createRecord(owner, vault, { name: 'Record A' });
    recordB = await s.t.createRecord(owner, vault, { name: 'Record B' });
    await s.uploadAndWait(owner, vault, recordA, 'a.txt', Buffer.from(`the ${word} grows in record a`));
    await s.uploadAndWait(owner, vault, recordB, 'b.txt', Buffer.from(`the ${word} grows in record b`));
    const other = await s.t.caller('tenant-a');
    const otherVault = await s.t.createVault(other);
    const otherRecord = await s.t.createRecord(other, otherVault);
    await s.uploadAndWait(other, otherVault, otherRecord, 'other.txt', Buffer.from(`another ${word} elsewhere`));
    const foreign = await s.t.caller('tenant-b');
    const foreignVault = await s.t.createVault(foreign);
    const foreignRecord = await s.t.createRecord(foreign, foreignVault);
    await s.uploadAndWait(foreign, foreignVault, foreignRecord, 'foreign.txt', Buffer.from(`a foreign ${word}`));
  });
  afterAll(() => s?.stop());

  const withVaultRole = async (role: VaultRole) => {
    const c = await s.t.caller('tenant-a');
    await s.t.grantVaultRole(vault, c, role);
    return c;
  };
  const withRecordRole = async (role: RecordRole) => {
    const c = await s.t.caller('tenant-a');
    await s.t.grantRecordRole(recordA, c, role);
    return c;
  };

  it('gives every identity exactly the files it may read', async () => {
    const cases: [string, Caller, string[]][] = [
      ['vault owner', owner, ['a.txt', 'b.txt']],
      ['vault_editor', await withVaultRole('vault_editor'), ['a.txt', 'b.txt']],
      ['vault_viewer', await withVaultRole('vault_viewer'), ['a.txt', 'b.txt']],
      ['vault_info', await withVaultRole('vault_info'), []],
      ['rec_owner of A', await withRecordRole('rec_owner'), ['a.txt']],
      ['rec_editor of A', await withRecordRole('rec_editor'), ['a.txt']],
      ['rec_viewer of A', await withRecordRole('rec_viewer'), ['a.txt']],
      ['rec_info of A', await withRecordRole('rec_info'), []],
      ['stranger of the tenant', await s.t.caller('tenant-a'), []],
      ['same open id in another tenant', { ...(await s.t.caller('tenant-c')), openId: owner.openId }, []],
    ];
    for (const [who, c, files] of cases) expect({ who, files: await s.names(c, word) }).toEqual({ who, files });
  });

  it('keeps a vault filter inside what the caller may read', async () => {
    const stranger = await s.t.caller('tenant-a');
    expect(await s.names(stranger, word, { vaultId: vault })).toEqual([]);
    expect(await s.names(owner, word, { vaultId: vault })).toEqual(['a.txt', 'b.txt']);
  });

  it('drops a removed collaborator on the next query', async () => {
    const viewer = await withVaultRole('vault_viewer');
    expect(await s.names(viewer, word)).toEqual(['a.txt', 'b.txt']);
    await s.t.sql(`DELETE FROM vault_memberships WHERE vault_id = $1 AND open_id = $2`, [vault, viewer.openId]);
    expect(await s.names(viewer, word)).toEqual([]);
  });

  it('drops a deleted record at once and brings it back restored, without extracting again', async () => {
    const extractedAt = await s.t.sql(`SELECT extracted_at FROM file_texts ORDER BY extracted_at`);
    await s.t.delete(owner, `/vault/vault-id/${vault}/records/record-id/${recordB}`).expect(200);
    expect(await s.names(owner, word)).toEqual(['a.txt']);
    const [{ trash }] = await s.t.sql<{ trash: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'records' AND column_name = 'deleted_at') AS trash`,
    );
    await s.t.sql(`UPDATE records SET status = 'ACTIVE'${trash ? ', deleted_at = NULL' : ''} WHERE id = $1`, [recordB]);
    expect(await s.names(owner, word)).toEqual(['a.txt', 'b.txt']);
    expect(await s.t.sql(`SELECT extracted_at FROM file_texts ORDER BY extracted_at`)).toEqual(extractedAt);
  });

  it('answers the text route by the download rule: 404 unseen, 403 too weak, 401 without a token', async () => {
    const path = (record: string, name: string) =>
      `/vault/vault-id/${vault}/records/record-id/${record}/record-files/${name}/text`;
    await s.t.get(await s.t.caller('tenant-a'), path(recordA, 'a.txt')).expect(404);
    await s.t.get(await s.t.caller('tenant-b'), path(recordA, 'a.txt')).expect(404);
    await s.t.get(await withRecordRole('rec_viewer'), path(recordB, 'b.txt')).expect(404);
    await s.t.get(await withVaultRole('vault_info'), path(recordA, 'a.txt')).expect(403);
    await s.t.get(await withRecordRole('rec_viewer'), path(recordA, 'a.txt')).expect(200);
    await s.t.get(owner, path(recordA, 'missing.txt')).expect(404);
    await s.t
      .http()
      .get(`/api/v1${path(recordA, 'a.txt')}`)
      .expect(401);
  });

  it('reads nothing of a tenant whose indexing is off, and finds nothing of it', async () => {
    const c = await s.t.caller('tenant-c');
    const v = await s.t.createVault(c);
    const r = await s.t.createRecord(c, v);
    const text = await s.uploadAndWait(c, v, r, 'c.txt', Buffer.from(`the ${word} of a tenant without indexing`));
    expect(text).toMatchObject({ status: 'skipped', reason: 'indexing_off', pages: [] });
    expect(await s.names(c, word)).toEqual([]);
    expect(await s.t.sql(`SELECT 1 FROM file_text_pages WHERE tenant_id = 'tenant-c'`)).toEqual([]);
    expect(await s.t.sql(`SELECT word FROM search_words WHERE tenant_id = 'tenant-c'`)).toEqual([]);
    // the other tenants' files of the same service are indexed as before
    expect(await s.names(owner, word)).toEqual(['a.txt', 'b.txt']);
  });

  it('turns a vault off (its text goes at once) and on again', async () => {
    const settings = `/vault/vault-id/${vault}/search-settings`;
    await s.t.put(await withVaultRole('vault_editor'), settings, { contentIndexing: false, language: 'simple' }).expect(403);
    // the word list counts each tenant's pages per word; a word part is looked for in it
    const words = async () =>
      Object.fromEntries(
        (
          await s.t.sql<{ tenant_id: string; word: string; pages: number }>(
            `SELECT tenant_id, word, pages FROM search_words WHERE word IN ('quillwort', 'grows', 'foreign') ORDER BY 1, 2`,
          )
        ).map((w) => [`${w.tenant_id}/${w.word}`, w.pages]),
      );
    expect(await words()).toEqual({
      'tenant-a/grows': 2,
      'tenant-a/quillwort': 3,
      'tenant-b/foreign': 1,
      'tenant-b/quillwort': 1,
    });
    expect(await s.names(owner, 'illwor')).toEqual(['a.txt', 'b.txt']);
    await s.t.put(owner, settings, { contentIndexing: false, language: 'simple' }).expect(200);
    expect(await s.names(owner, word)).toEqual([]);
    expect(await s.names(owner, 'illwor')).toEqual([]);
    // a word leaves the list with its last page
    expect(await words()).toEqual({ 'tenant-a/quillwort': 1, 'tenant-b/foreign': 1, 'tenant-b/quillwort': 1 });
    expect(await s.t.sql(`SELECT 1 FROM file_text_pages WHERE body LIKE '%record a%'`)).toEqual([]);
    const text = await s.t
      .get(owner, `/vault/vault-id/${vault}/records/record-id/${recordA}/record-files/a.txt/text`)
      .expect(200);
    expect(text.body).toMatchObject({ status: 'skipped', reason: 'indexing_off', pages: [] });
    await s.t.put(owner, settings, { contentIndexing: true, language: 'english' }).expect(200);
    expect((await s.t.get(owner, settings).expect(200)).body).toEqual({ contentIndexing: true, language: 'english' });
    await s.waitText(owner, vault, recordA, 'a.txt');
    const end = Date.now() + 30_000;
    while ((await s.names(owner, word)).length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(await s.names(owner, word)).toEqual(['a.txt', 'b.txt']);
  });
});
