import { SUBSCRIPTION_FEATURE_KEYS, SUBJECTS } from '@vault/contracts';
import { Caller, RecordsTestApp } from './support';

describe('vaults', () => {
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_vaults');
  });
  beforeEach(async () => {
    // a fresh owner per test: the default plan allows a few owned vaults only
    owner = await t.caller();
  });
  afterAll(() => t?.stop());

  describe('POST /vault', () => {
    it('creates a vault with defaults, the caller as owner and a default-plan licence', async () => {
      const res = await t.post(owner, '/vault', {}).expect(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      const view = await t.get(owner, `/vault/vault-id/${res.body.id}`).expect(200);
      expect(view.body).toMatchObject({
        id: res.body.id,
        name: 'My vault',
        email: null,
        type: 'individual',
        default: true,
        editable: true,
        active: true,
        status: 'ACTIVE',
        userVaultRole: ['vault_owner'],
      });
      expect(Object.keys(view.body.subscriptionFeatures).sort()).toEqual([...SUBSCRIPTION_FEATURE_KEYS].sort());
      expect(view.body.subscriptionFeatures['vault.maxVaultRecords']).toBe('100');
      const licences = await t.get(owner, `/vault/vault-id/${res.body.id}/licenses`).expect(200);
      expect(licences.body).toEqual([
        {
          subscriptionId: expect.any(String),
          plan: { id: 'free', name: 'Free' },
          sponsored: false,
          renewsOn: expect.any(String),
        },
      ]);
      expect(new Date(licences.body[0].renewsOn).getTime()).toBeGreaterThan(Date.now() + 300 * 86400_000);
    });

    it('stores every field of the body and shows the inbox address', async () => {
      const caller = await t.caller();
      const id = await t.createVault(caller, {
        name: 'Family papers',
        emailUsername: 'Family.Papers',
        profilePhoto: 'https://img.example/p.png',
        firstName: 'Ana',
        lastName: 'Silva',
        type: 'family',
        default: false,
        editable: false,
        brandCode: 'partner',
        licenseKey: 'PREMIUM-DEMO-2026',
      });
      const view = await t.get(caller, `/vault/vault-id/${id}`).expect(200);
      expect(view.body).toMatchObject({
        name: 'Family papers',
        email: 'family.papers@inbox.vault.localhost',
        profilePhoto: 'https://img.example/p.png',
        firstName: 'Ana',
        lastName: 'Silva',
        type: 'family',
        default: false,
        editable: false,
        brandCode: 'partner',
      });
      expect(view.body.subscriptionFeatures['vault.maxVaultRecords']).toBe('1000');
    });

    it('names the vault after the owner when no name is given', async () => {
      const id = await t.createVault(owner, { firstName: 'Lee', lastName: 'Wong' });
      expect((await t.get(owner, `/vault/vault-id/${id}`)).body.name).toBe('Lee Wong');
    });

    it('gives a sponsored licence its sponsor', async () => {
      const caller = await t.caller();
      const id = await t.createVault(caller, { licenseKey: 'SPONSORED-ACME-2026' });
      const res = await t.get(caller, `/vault/vault-id/${id}/licenses`).expect(200);
      expect(res.body).toEqual([
        {
          subscriptionId: expect.any(String),
          plan: { id: 'premium', name: 'Premium' },
          sponsored: true,
          sponsor: 'Acme Insurance',
          renewsOn: expect.any(String),
        },
      ]);
    });

    it.each([
      ['an unknown field', { color: 'red' }, 'color'],
      ['a bad type', { type: 'castle' }, 'type'],
      ['a bad inbox name', { emailUsername: 'no spaces@here' }, 'emailUsername'],
      ['a non-boolean default', { default: 'yes' }, 'default'],
      ['an empty name', { name: '' }, 'name'],
      ['a null name', { name: null }, 'name'],
      ['a null type', { type: null }, 'type'],
      ['a null editable', { editable: null }, 'editable'],
      ['a null licenseKey', { licenseKey: null }, 'licenseKey'],
    ])('refuses %s with 400 and writes nothing', async (_, body, field) => {
      const before = await t.snapshot();
      const res = await t.post(owner, '/vault', body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await t.snapshot()).toBe(before);
    });

    it('refuses a body that is not an object', async () => {
      const before = await t.snapshot();
      await t.post(owner, '/vault', [{ name: 'x' }]).expect(400);
      await t
        .http()
        .post('/api/v1/vault')
        .set('Authorization', `Bearer ${owner.token}`)
        .set('Content-Type', 'application/json')
        .send('{"name":')
        .expect(400);
      expect(await t.snapshot()).toBe(before);
    });

    it('refuses an unknown licence key with 400 unknown_license_key and writes nothing', async () => {
      const before = await t.snapshot();
      const res = await t.post(owner, '/vault', { licenseKey: 'NOPE' }).expect(400);
      expect(res.body).toMatchObject({ code: 'unknown_license_key', errors: [{ field: 'licenseKey' }] });
      expect(await t.snapshot()).toBe(before);
    });

    it('refuses an unknown brandCode with 400', async () => {
      const res = await t.post(owner, '/vault', { brandCode: 'nobody' }).expect(400);
      expect(res.body.errors).toEqual([{ field: 'brandCode', message: expect.any(String) }]);
    });

    it('accepts read-only echoes and ignores them', async () => {
      const id = await t.createVault(owner, { id: 'x', status: null, createdAt: null, updatedAt: null, lastModifiedBy: null });
      expect(id).not.toBe('x');
    });

    it('refuses an inbox name already in use, in any letter case, with 409', async () => {
      await t.createVault(owner, { emailUsername: 'shared-box' });
      const other = await t.caller('tenant-b');
      const before = await t.snapshot();
      const res = await t.post(other, '/vault', { emailUsername: 'SHARED-box' }).expect(409);
      expect(res.body.code).toBe('email_username_taken');
      expect(await t.snapshot()).toBe(before);
    });

    it('gives a contested inbox name to exactly one of concurrent creates', async () => {
      const callers = await Promise.all(Array.from({ length: 5 }, () => t.caller()));
      const results = await Promise.all(callers.map((c) => t.post(c, '/vault', { emailUsername: 'race-box' })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'email_username_taken')).toBe(true);
      expect(await t.sql(`SELECT id FROM vaults WHERE email_username = 'race-box'`)).toHaveLength(1);
    });

    it('keeps one default vault per owner', async () => {
      const caller = await t.caller();
      const first = await t.createVault(caller);
      const second = await t.createVault(caller, { default: true });
      expect((await t.get(caller, `/vault/vault-id/${first}`)).body.default).toBe(false);
      expect((await t.get(caller, `/vault/vault-id/${second}`)).body.default).toBe(true);
    });

    it('writes vault created and licence created events with the vault', async () => {
      const caller = await t.caller('tenant-a', 'maria');
      const id = await t.createVault(caller, { name: 'Evented' });
      const rows = (await t.outbox()).filter((r) => r.vault_id === id);
      expect(rows.map((r) => r.subject)).toEqual([SUBJECTS.vaultCreated, SUBJECTS.licenseCreated]);
      expect(rows[0].payload).toMatchObject({
        tenantId: 'tenant-a',
        actor: { openId: caller.openId, username: 'maria' },
        vault: { id, name: 'Evented' },
        occurredAt: expect.any(String),
      });
      expect(rows[1].payload).toMatchObject({ planId: 'free', sponsored: false, subscriptionId: expect.any(String) });
      expect(rows.every((r) => r.published_at === null)).toBe(true);
    });
  });

  describe('GET /vault/check-email', () => {
    it('answers in plain text whether the name is free', async () => {
      await t.createVault(owner, { emailUsername: 'taken-name' });
      const free = await t.get(owner, '/vault/check-email?emailUsername=free-name').expect(200);
      expect(free.headers['content-type']).toMatch(/^text\/plain/);
      expect(free.text).toBe('email_username_available');
      const taken = await t.get(owner, '/vault/check-email?emailUsername=Taken-Name').expect(200);
      expect(taken.text).toBe('email_username_taken');
    });

    it('needs a well-formed emailUsername', async () => {
      await t.get(owner, '/vault/check-email').expect(400);
      const res = await t.get(owner, '/vault/check-email?emailUsername=a%20b').expect(400);
      expect(res.body.errors[0].field).toBe('emailUsername');
    });
  });

  describe('PUT /vault/vault-id/{vaultId}', () => {
    it('updates the given fields, answers 201 with the vault and writes an update event', async () => {
      const id = await t.createVault(owner, { name: 'Before', emailUsername: 'before-box' });
      const res = await t
        .put(owner, `/vault/vault-id/${id}`, {
          name: 'After',
          emailUsername: 'after-box',
          profilePhoto: null,
          firstName: 'Jo',
          editable: false,
          brandCode: 'partner',
        })
        .expect(201);
      expect(res.body).toMatchObject({
        id,
        name: 'After',
        email: 'after-box@inbox.vault.localhost',
        profilePhoto: null,
        firstName: 'Jo',
        editable: false,
        brandCode: 'partner',
        userVaultRole: ['vault_owner'],
      });
      const events = await t.outbox(SUBJECTS.vaultUpdated);
      const mine = events.filter((e) => e.vault_id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0].payload.changedFields).toEqual(['name', 'firstName', 'editable', 'brandCode', 'emailUsername']);
      // the old inbox name is free again
      expect((await t.get(owner, '/vault/check-email?emailUsername=before-box')).text).toBe('email_username_available');
    });

    it('clears nullable fields with null: inbox name, names, photo, brand', async () => {
      const id = await t.createVault(owner, {
        emailUsername: 'clear-me',
        firstName: 'A',
        lastName: 'B',
        profilePhoto: 'https://img.example/a.png',
        brandCode: 'partner',
      });
      const res = await t
        .put(owner, `/vault/vault-id/${id}`, {
          emailUsername: null,
          firstName: null,
          lastName: null,
          profilePhoto: null,
          brandCode: null,
        })
        .expect(201);
      expect(res.body).toMatchObject({ email: null, firstName: null, lastName: null, profilePhoto: null, brandCode: null });
      expect((await t.get(owner, `/vault/vault-id/${id}/branding`)).body.brandCode).toBe('default');
      expect((await t.get(owner, '/vault/check-email?emailUsername=clear-me')).text).toBe('email_username_available');
      await t.put(owner, `/vault/vault-id/${id}`, { name: null }).expect(400);
      await t.put(owner, `/vault/vault-id/${id}`, { default: null }).expect(400);
    });

    it('refuses type changes and unknown fields with 400', async () => {
      const id = await t.createVault(owner);
      await t.put(owner, `/vault/vault-id/${id}`, { type: 'business' }).expect(400);
    });

    it('refuses an inbox name of another vault with 409 and changes nothing', async () => {
      await t.createVault(owner, { emailUsername: 'first-box' });
      const id = await t.createVault(owner, { emailUsername: 'second-box' });
      const before = await t.snapshot();
      const res = await t.put(owner, `/vault/vault-id/${id}`, { emailUsername: 'First-Box', name: 'x' }).expect(409);
      expect(res.body.code).toBe('email_username_taken');
      expect(await t.snapshot()).toBe(before);
    });

    it('adds a licence when the owner sends a new key, and refuses unknown keys', async () => {
      const id = await t.createVault(owner);
      const res = await t.put(owner, `/vault/vault-id/${id}`, { licenseKey: 'FAMILY-DEMO-2026' }).expect(201);
      expect(res.body.subscriptionFeatures['vault.maxVaultRecords']).toBe('5000');
      const licences = await t.get(owner, `/vault/vault-id/${id}/licenses`).expect(200);
      expect(licences.body.map((l: { plan: { id: string } }) => l.plan.id)).toEqual(['free', 'family']);
      await t.put(owner, `/vault/vault-id/${id}`, { licenseKey: 'FAMILY-DEMO-2026' }).expect(201);
      expect((await t.get(owner, `/vault/vault-id/${id}/licenses`)).body).toHaveLength(2);
      const bad = await t.put(owner, `/vault/vault-id/${id}`, { licenseKey: 'WRONG' }).expect(400);
      expect(bad.body.code).toBe('unknown_license_key');
    });

    it('lets an editor update but not change the licence; viewers and info get 403', async () => {
      const id = await t.createVault(owner);
      const editor = await t.caller();
      const viewer = await t.caller();
      const info = await t.caller();
      await t.grantVaultRole(id, editor, 'vault_editor');
      await t.grantVaultRole(id, viewer, 'vault_viewer');
      await t.grantVaultRole(id, info, 'vault_info');
      const res = await t.put(editor, `/vault/vault-id/${id}`, { name: 'By editor' }).expect(201);
      expect(res.body.userVaultRole).toEqual(['vault_editor']);
      await t.put(editor, `/vault/vault-id/${id}`, { licenseKey: 'PREMIUM-DEMO-2026' }).expect(403);
      await t.put(owner, `/vault/vault-id/${id}`, { licenseKey: 'FAMILY-DEMO-2026' }).expect(201);
      const before = await t.snapshot();
      await t.put(editor, `/vault/vault-id/${id}`, { name: 'Sneaky', licenseKey: 'PREMIUM-DEMO-2026' }).expect(403);
      expect(await t.snapshot()).toBe(before);
      // Echoing the current key is not a change.
      await t.put(editor, `/vault/vault-id/${id}`, { name: 'By editor', licenseKey: 'FAMILY-DEMO-2026' }).expect(201);
      await t.put(viewer, `/vault/vault-id/${id}`, { name: 'x' }).expect(403);
      await t.put(info, `/vault/vault-id/${id}`, { name: 'x' }).expect(403);
      expect((await t.get(info, `/vault/vault-id/${id}`).expect(200)).body.name).toBe('By editor');
    });
  });

  describe('default flag on a shared vault', () => {
    it("lets only the owner change it: an editor gets 403 and the owner's vaults keep their flags", async () => {
      const ownDefault = await t.createVault(owner);
      const shared = await t.createVault(owner, { default: false });
      const editor = await t.caller();
      await t.grantVaultRole(shared, editor, 'vault_editor');

      const refused = await t.put(editor, `/vault/vault-id/${shared}`, { default: true }).expect(403);
      expect(refused.body.status).toBe(403);
      expect((await t.get(owner, `/vault/vault-id/${ownDefault}`)).body.default).toBe(true);
      expect((await t.get(owner, `/vault/vault-id/${shared}`)).body.default).toBe(false);

      // an unchanged echo is fine, with other fields
      const echoed = await t.put(editor, `/vault/vault-id/${shared}`, { default: false, name: 'Edited' }).expect(201);
      expect(echoed.body).toMatchObject({ name: 'Edited', default: false });

      await t.put(owner, `/vault/vault-id/${shared}`, { default: true }).expect(201);
      expect((await t.get(owner, `/vault/vault-id/${ownDefault}`)).body.default).toBe(false);
      await t.put(editor, `/vault/vault-id/${shared}`, { default: false }).expect(403);
      expect((await t.get(owner, `/vault/vault-id/${shared}`)).body.default).toBe(true);
    });
  });

  describe('DELETE /vault/vault-id/{vaultId}', () => {
    it('lets only the owner delete; the vault goes to the trash with its records and roles, its inbox name free', async () => {
      const id = await t.createVault(owner, { emailUsername: 'doomed-box' });
      const recordId = await t.createRecord(owner, id);
      const editor = await t.caller();
      await t.grantVaultRole(id, editor, 'vault_editor');
      await t.delete(editor, `/vault/vault-id/${id}`).expect(403);
      const res = await t.delete(owner, `/vault/vault-id/${id}`).expect(200);
      expect(res.text).toBe('');
      await t.get(owner, `/vault/vault-id/${id}`).expect(404);
      await t.delete(owner, `/vault/vault-id/${id}`).expect(404);
      expect(await t.sql('SELECT id FROM records WHERE id = $1', [recordId])).toEqual([{ id: recordId }]);
      expect(await t.sql('SELECT role FROM vault_memberships WHERE vault_id = $1 ORDER BY role', [id])).toEqual([
        { role: 'vault_editor' },
        { role: 'vault_owner' },
      ]);
      const [trashed] = await t.sql('SELECT deleted_at IS NOT NULL AS trashed FROM vaults WHERE id = $1', [id]);
      expect(trashed).toEqual({ trashed: true });
      expect((await t.outbox(SUBJECTS.vaultDeleted)).some((e) => e.vault_id === id)).toBe(true);
      expect((await t.outbox(SUBJECTS.vaultTrashed)).some((e) => e.vault_id === id)).toBe(true);
      expect((await t.get(owner, '/vault/check-email?emailUsername=doomed-box')).text).toBe('email_username_available');
    });
  });

  describe('GET /vault/vault-id/{vaultId}/home', () => {
    it('lists the twelve record types with the vault counts', async () => {
      const id = await t.createVault(owner);
      await t.createRecord(owner, id);
      await t.createRecord(owner, id, { recordTypeName: 'transportation', recordSubtypeName: 'licensePlates' });
      const deleted = await t.createRecord(owner, id);
      await t.delete(owner, `/vault/vault-id/${id}/records/record-id/${deleted}`).expect(200);
      const res = await t.get(owner, `/vault/vault-id/${id}/home`).expect(200);
      expect(res.body).toMatchObject({
        id,
        userVaultRole: ['vault_owner'],
        maxRecordsReached: false,
        integrations: null,
        default: expect.any(Boolean),
        status: 'ACTIVE',
      });
      expect(res.body.recordsType).toHaveLength(12);
      const counts = Object.fromEntries(res.body.recordsType.map((x: { name: string; count: number }) => [x.name, x.count]));
      expect(counts).toMatchObject({ identityDocs: 1, transportation: 1, collectibles: 0 });
      expect(res.body.recordsType[0].displayValue).toHaveLength(4);
      expect(res.body.recordsType[0].logo).toMatch(/^https:\/\//);
    });

    it('renders tiles in the requested locale and refuses unknown locales', async () => {
      const id = await t.createVault(owner);
      const res = await t.get(owner, `/vault/vault-id/${id}/home?locale=fr-CA`).expect(200);
      const tile = res.body.recordsType.find((x: { name: string }) => x.name === 'identityDocs');
      expect(tile.displayValue).toEqual([{ locale: 'fr-CA', value: "Pièces d'identité" }]);
      await t.get(owner, `/vault/vault-id/${id}/home?locale=de-DE`).expect(400);
    });
  });

  describe('GET /vault/vault-id/{vaultId}/branding', () => {
    it('answers every branding field for the vault brand, locale and mode', async () => {
      const id = await t.createVault(owner);
      const res = await t.get(owner, `/vault/vault-id/${id}/branding`).expect(200);
      expect(res.body).toMatchObject({
        tenant: 'tenant-a',
        brandCode: 'default',
        brandName: 'Vault',
        locale: 'en-US',
        active: true,
        default: true,
        hideDefaultRecordTypes: false,
      });
      for (const logo of [
        'primaryLogoExpanded',
        'primaryLogoContracted',
        'secondaryLogo',
        'primaryIsoLogo',
        'secondaryIsoLogo',
        'topBanner',
      ]) {
        expect(Object.keys(res.body[logo]).sort()).toEqual(['large', 'medium', 'small']);
      }
      expect(Object.keys(res.body.styleSheet)).toHaveLength(16);
      expect(Object.keys(res.body.appSections)).toHaveLength(6);
      const dark = await t.get(owner, `/vault/vault-id/${id}/branding?locale=es-US&darkMode=darkMode`).expect(200);
      expect(dark.body.locale).toBe('es-US');
      expect(dark.body.footerMessage).toMatch(/Privacidad/);
      expect(dark.body.styleSheet.appBackground).not.toBe(res.body.styleSheet.appBackground);
      expect(dark.body.topBanner.large).toMatch(/\/dark\//);
    });

    it('uses the vault brandCode', async () => {
      const id = await t.createVault(owner, { brandCode: 'partner' });
      const res = await t.get(owner, `/vault/vault-id/${id}/branding?locale=fr-CA`).expect(200);
      expect(res.body).toMatchObject({ brandCode: 'partner', brandName: 'Vault for Partners', default: false });
      expect(res.body.appSections.paymentDetails).toBe(false);
    });

    it.each([['locale=xx-XX'], ['darkMode=dim'], ['foo=bar']])('refuses %s with 400', async (q) => {
      const id = await t.createVault(owner);
      await t.get(owner, `/vault/vault-id/${id}/branding?${q}`).expect(400);
    });
  });
});
