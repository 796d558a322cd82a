import { Caller, RecordsTestApp, writePlansFile } from './support';

/**
 * Vaults and records shared with a caller on every read: the vault listing and its
 * `shared` filter, the vault lookup, home tiles, record search and lookup, contributors,
 * and the owned-vaults quota that shared vaults do not use up.
 */
describe('shared vaults and records', () => {
  let t: RecordsTestApp;
  let ana: Caller;
  let ben: Caller;
  let cleo: Caller;
  let dan: Caller;
  let outsider: Caller;
  let anaFirst: string;
  let anaSecond: string;
  /** Ben's vault: Ana is its vault_editor. */
  let benVault: string;
  /** Cleo's vault: Ana holds roles on two of its three records. */
  let cleoVault: string;
  let passport: string;
  let plates: string;
  let deed: string;

  type VaultItem = { id: string; userVaultRole: string[]; userRecordRole: string[]; name: string };
  const list = async (c: Caller, query = '') => (await t.get(c, `/vault${query}`).expect(200)).body as VaultItem[];
  const summary = (items: VaultItem[]) => items.map((v) => [v.name, v.userVaultRole, v.userRecordRole]);
  const records = (c: Caller, vaultId: string, query = '') => t.get(c, `/vault/vault-id/${vaultId}/records${query}`);

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_shared_vaults', {
      VAULT_PLANS_FILE: writePlansFile({ free: { 'account.maxOwnedVaults': '2' } }),
    });
    [ana, ben, cleo, dan] = [await t.caller(), await t.caller(), await t.caller(), await t.caller()];
    outsider = await t.caller('tenant-b');
    anaFirst = await t.createVault(ana, { name: 'Ana first' });
    anaSecond = await t.createVault(ana, { name: 'Ana second' });
    benVault = await t.createVault(ben, { name: 'Ben vault', licenseKey: 'PREMIUM-DEMO-2026' });
    cleoVault = await t.createVault(cleo, { name: 'Cleo vault' });
    await t.createVault(dan, { name: 'Dan vault' });
    await t.createVault(outsider, { name: 'Outsider vault' });
    await t.grantVaultRole(benVault, ana, 'vault_editor');
    passport = await t.createRecord(cleo, cleoVault, { name: 'Passport' });
    plates = await t.createRecord(cleo, cleoVault, {
      name: 'Plates',
      recordTypeName: 'transportation',
      recordSubtypeName: 'licensePlates',
    });
    deed = await t.createRecord(cleo, cleoVault, {
      name: 'Deed',
      recordTypeName: 'realEstate',
      recordSubtypeName: 'other',
      recordSubtypeOther: 'Deed',
    });
    await t.grantRecordRole(passport, ana, 'rec_info');
    await t.grantRecordRole(plates, ana, 'rec_editor');
    await t.grantRecordRole(plates, dan, 'rec_viewer');
  });
  afterAll(() => t?.stop());

  describe('GET /vault', () => {
    it('lists owned vaults, vaults shared through a role, and vaults holding records shared with the caller', async () => {
      expect(summary(await list(ana))).toEqual([
        ['Ana first', ['vault_owner'], []],
        ['Ana second', ['vault_owner'], []],
        ['Ben vault', ['vault_editor'], []],
        ['Cleo vault', [], ['rec_editor', 'rec_info']],
      ]);
      expect(summary(await list(dan))).toEqual([
        ['Cleo vault', [], ['rec_viewer']],
        ['Dan vault', ['vault_owner'], []],
      ]);
      // every item is a full vault view, on the plan of its own licence
      const items = await list(ana);
      expect(items[0]).toMatchObject({ id: anaFirst, default: true, status: 'ACTIVE' });
      expect(
        items.map(
          (v) =>
            (v as VaultItem & { subscriptionFeatures: Record<string, string> }).subscriptionFeatures['vault.maxVaultRecords'],
        ),
      ).toEqual(['100', '100', '1000', '100']);
    });

    it('filters with shared=true (not owned) and shared=false (owned)', async () => {
      expect((await list(ana, '?shared=true')).map((v) => v.id)).toEqual([benVault, cleoVault]);
      expect((await list(ana, '?shared=false')).map((v) => v.id)).toEqual([anaFirst, anaSecond]);
      expect((await list(ben, '?shared=true')).map((v) => v.id)).toEqual([]);
      expect((await list(outsider)).map((v) => v.name)).toEqual(['Outsider vault']);
    });

    it('refuses a shared value other than true or false with a 400 problem', async () => {
      for (const bad of ['yes', '1', 'TRUE', '']) {
        const res = await t.get(ana, `/vault?shared=${bad}`).expect(400);
        expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
        expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('shared');
      }
      await t.get(ana, '/vault?owner=me').expect(400);
    });

    it('pages with page or pageSize', async () => {
      const res = await t.get(ana, '/vault?pageSize=3&page=2').expect(200);
      expect(res.body.data.map((v: VaultItem) => v.id)).toEqual([cleoVault]);
      expect(res.body.page).toMatchObject({ totalItems: 4, currentPage: 2, pageSize: 3, totalPages: 2 });
      expect(res.body.nextCursor).toBeNull();
      // The first page's nextCursor continues to the same second page.
      const first = await t.get(ana, '/vault?pageSize=3').expect(200);
      expect(first.body.data).toHaveLength(3);
      const next = await t.get(ana, `/vault?cursor=${first.body.nextCursor}`).expect(200);
      expect(next.body).toEqual(res.body);
      const shared = await t.get(ana, '/vault?shared=true&page=1').expect(200);
      expect(shared.body.page.totalItems).toBe(2);
      await t.get(ana, '/vault?pageSize=0').expect(400);
    });

    it('drops a vault whose shared records are all deleted', async () => {
      const eve = await t.caller();
      const vault = await t.createVault(ben, { name: 'Short lived' });
      const record = await t.createRecord(ben, vault);
      await t.grantRecordRole(record, eve, 'rec_editor');
      expect((await list(eve)).map((v) => v.id)).toEqual([vault]);
      await t.get(eve, `/vault/vault-id/${vault}`).expect(200);
      await t.delete(ben, `/vault/vault-id/${vault}/records/record-id/${record}`).expect(200);
      expect(await list(eve)).toEqual([]);
      await t.get(eve, `/vault/vault-id/${vault}`).expect(404);
    });
  });

  describe('vault lookup and home', () => {
    it('shows a record guest the vault with its record roles and refuses it the vault routes above info', async () => {
      const view = (await t.get(ana, `/vault/vault-id/${cleoVault}`).expect(200)).body;
      expect(view).toMatchObject({ id: cleoVault, userVaultRole: [], userRecordRole: ['rec_editor', 'rec_info'] });
      const owner = (await t.get(cleo, `/vault/vault-id/${cleoVault}`).expect(200)).body;
      expect(owner).toMatchObject({ userVaultRole: ['vault_owner'], userRecordRole: [] });
      expect((await t.get(ana, `/vault/vault-id/${benVault}`).expect(200)).body.userVaultRole).toEqual(['vault_editor']);
      await t.get(ana, `/vault/vault-id/${cleoVault}/licenses`).expect(403);
      await t.get(ana, `/vault/vault-id/${cleoVault}/log`).expect(403);
      await t.put(ana, `/vault/vault-id/${cleoVault}`, { name: 'Mine now' }).expect(403);
      await t.post(ana, `/vault/vault-id/${cleoVault}/records`, { name: 'x' }).expect(403);
      expect((await t.get(cleo, `/vault/vault-id/${cleoVault}`)).body.name).toBe('Cleo vault');
    });

    it('counts on home tiles only the records the caller sees', async () => {
      const tiles = async (c: Caller) => {
        const body = (await t.get(c, `/vault/vault-id/${cleoVault}/home`).expect(200)).body;
        return Object.fromEntries(
          (body.recordsType as { name: string; count: number }[])
            .filter((tile) => tile.count > 0)
            .map((tile) => [tile.name, tile.count]),
        );
      };
      expect(await tiles(cleo)).toEqual({ identityDocs: 1, transportation: 1, realEstate: 1 });
      expect(await tiles(ana)).toEqual({ identityDocs: 1, transportation: 1 });
      expect(await tiles(dan)).toEqual({ transportation: 1 });
      const home = (await t.get(dan, `/vault/vault-id/${cleoVault}/home`)).body;
      expect(home).toMatchObject({ userVaultRole: [], userRecordRole: ['rec_viewer'], maxRecordsReached: false });
      const info = await t.caller();
      await t.grantVaultRole(cleoVault, info, 'vault_info');
      expect(await tiles(info)).toEqual({ identityDocs: 1, transportation: 1, realEstate: 1 });
    });
  });

  describe('records', () => {
    const names = (items: { name: string }[]) => items.map((r) => r.name).sort();

    it('finds every record for a vault member and only the shared ones for a record guest', async () => {
      expect(names((await records(cleo, cleoVault).expect(200)).body)).toEqual(['Deed', 'Passport', 'Plates']);
      expect(names((await records(ana, cleoVault).expect(200)).body)).toEqual(['Passport', 'Plates']);
      expect(names((await records(dan, cleoVault).expect(200)).body)).toEqual(['Plates']);
      expect((await records(ana, cleoVault, '?name=deed').expect(200)).body).toEqual([]);
      const page = (await records(ana, cleoVault, '?pageSize=1').expect(200)).body;
      expect(page.page.totalItems).toBe(2);
      expect(page.data).toHaveLength(1);
      // a vault_info member sees names and metadata of every record
      const info = await t.caller();
      await t.grantVaultRole(cleoVault, info, 'vault_info');
      expect(names((await records(info, cleoVault).expect(200)).body)).toEqual(['Deed', 'Passport', 'Plates']);
    });

    it('looks a record up with both roles of the caller; info roles get 403, unshared records 404', async () => {
      const path = (id: string) => `/vault/vault-id/${cleoVault}/records/record-id/${id}`;
      expect((await t.get(ana, path(plates)).expect(200)).body).toMatchObject({
        userVaultRole: [],
        userRecordRole: ['rec_editor'],
      });
      await t.get(ana, path(passport)).expect(403);
      await t.get(ana, path(deed)).expect(404);
      const both = await t.caller();
      await t.grantVaultRole(cleoVault, both, 'vault_viewer');
      await t.grantRecordRole(deed, both, 'rec_editor');
      expect((await t.get(both, path(deed)).expect(200)).body).toMatchObject({
        userVaultRole: ['vault_viewer'],
        userRecordRole: ['rec_editor'],
      });
      expect((await t.get(both, path(plates)).expect(200)).body).toMatchObject({
        userVaultRole: ['vault_viewer'],
        userRecordRole: [],
      });
    });

    it('refuses a transfer into a vault where the caller is only a record guest (403) and keeps the record', async () => {
      const own = await t.createRecord(ana, anaFirst, { name: 'To move' });
      const res = await t
        .put(ana, `/vault/vault-id/${anaFirst}/records/record-id/${own}/transfer`, { destinationVaultId: cleoVault })
        .expect(403);
      expect(res.body.code).toBe('forbidden');
      expect((await t.sql('SELECT vault_id FROM records WHERE id = $1', [own]))[0]).toEqual({ vault_id: anaFirst });
      // into Ben's vault, where Ana is vault_editor, it moves
      await t
        .put(ana, `/vault/vault-id/${anaFirst}/records/record-id/${own}/transfer`, { destinationVaultId: benVault })
        .expect(200);
    });

    it('lists the members of each record as contributors, the owner first, named by the account directory', async () => {
      // the directory knows Cleo and Ana only (it is the projection of user-service's account events)
      for (const [c, first, last] of [
        [cleo, 'Cleo', 'Cruz'],
        [ana, 'Ana', null],
      ] as const) {
        await t.sql(
          `INSERT INTO account_directory (tenant_id, open_id, account_id, username, first_name, last_name, active, version)
           VALUES ($1, $2, gen_random_uuid(), $3, $4, $5, true, 1)`,
          [c.tenantId, c.openId, c.username, first, last],
        );
      }
      const items = (await records(cleo, cleoVault).expect(200)).body as {
        id: string;
        contributors: string[];
        contributorDetails: { openId: string; role: string; firstName: string | null; lastName: string | null }[];
      }[];
      const item = items.find((r) => r.id === plates);
      expect(item?.contributors).toEqual([cleo.openId, ana.openId, dan.openId]);
      expect(item?.contributorDetails).toEqual([
        { openId: cleo.openId, role: 'rec_owner', firstName: 'Cleo', lastName: 'Cruz' },
        { openId: ana.openId, role: 'rec_editor', firstName: 'Ana', lastName: null },
        { openId: dan.openId, role: 'rec_viewer', firstName: null, lastName: null },
      ]);
      // a record guest sees the same members of the record it shares
      const guest = (await records(dan, cleoVault).expect(200)).body;
      expect(guest[0].contributors).toEqual(item?.contributors);
      expect(guest[0].contributorDetails).toEqual(item?.contributorDetails);
    });
  });

  it('describes the listing, the caller roles and contributorDetails in the OpenAPI description', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
    const parameters = doc.paths['/vault'].get.parameters as { name: string; schema: { enum?: string[] } }[];
    expect(parameters.find((p) => p.name === 'shared')?.schema.enum).toEqual(['true', 'false']);
    expect(parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['page', 'pageSize']));
    const schemas = doc.components.schemas;
    for (const view of ['VaultView', 'VaultHomeView']) {
      expect(schemas[view].required).toEqual(expect.arrayContaining(['userVaultRole', 'userRecordRole']));
    }
    expect(schemas.VaultListPage.properties.data.items.$ref).toBe('#/components/schemas/VaultView');
    expect(Object.keys(schemas.RecordContributor.properties)).toEqual(['openId', 'firstName', 'lastName', 'role']);
    expect(schemas.RecordSearchItem.properties.contributorDetails.items.$ref).toBe('#/components/schemas/RecordContributor');
    expect(schemas.RecordSearchItem.properties.contributors.items.type).toBe('string');
  });

  it('counts only owned vaults against account.maxOwnedVaults', async () => {
    // Ana owns two vaults (the plan's maximum) besides Ben's and Cleo's shared with her
    const full = await t.post(ana, '/vault', { name: 'Third' }).expect(409);
    expect(full.body.code).toBe('max_owned_vaults_reached');
    // Dan owns one and is a guest of Cleo's records: one more vault is his to create
    await t.post(dan, '/vault', { name: 'Dan second' }).expect(201);
    await t.post(dan, '/vault', { name: 'Dan third' }).expect(409);
    // a vault_editor of two foreign vaults (one of them premium) still creates its own up to its plan's maximum
    const fay = await t.caller();
    await t.grantVaultRole(benVault, fay, 'vault_editor');
    await t.grantVaultRole(cleoVault, fay, 'vault_editor');
    await t.post(fay, '/vault', { name: 'Fay first' }).expect(201);
    await t.post(fay, '/vault', { name: 'Fay second' }).expect(201);
    await t.post(fay, '/vault', { name: 'Fay third' }).expect(409);
  });
});
