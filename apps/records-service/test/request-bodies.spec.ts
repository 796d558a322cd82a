import { MAX_JSON_DEPTH } from '@vault/contracts';
import { expectProblemReply, nested, nestedJson, rawRequest } from '@vault/platform/testing';
import { Caller, recordBody, RecordsTestApp } from './support';

/** records-service request bodies on real routes (docs/errors.md, Request bodies and URL fields). */
describe('records-service request bodies', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let base: string;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_bodies');
    base = await t.app.getUrl();
  });
  beforeEach(async () => {
    owner = await t.caller();
  });
  afterAll(() => t?.stop());

  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    rawRequest(base, method, `/api/v1${path}`, body, { authorization: `Bearer ${owner.token}`, ...headers });

  const vaultCount = async () => Number((await t.sql<{ n: string }>('SELECT count(*) AS n FROM vaults'))[0].n);

  describe('POST /vault', () => {
    it.each([['text/plain'], ['application/xml'], ['application/octet-stream'], [undefined]])(
      'with content type %s: 415 and no vault created',
      async (type) => {
        const before = await vaultCount();
        const res = await send('POST', '/vault', '{"name":"ignored"}', type ? { 'content-type': type } : {});
        expectProblemReply(res, 415, 'unsupported_media_type');
        expect(await vaultCount()).toBe(before);
      },
    );

    it('takes JSON, form-encoded and bodyless requests', async () => {
      const json = await send('POST', '/vault', '{"name":"From JSON"}', { 'content-type': 'application/json' });
      const form = await send('POST', '/vault', 'name=From+form', { 'content-type': 'application/x-www-form-urlencoded' });
      const none = await send('POST', '/vault', undefined, { 'content-length': '0', 'content-type': 'text/plain' });
      expect([json.status, form.status, none.status]).toEqual([201, 201, 201]);
      const names = await t.sql<{ name: string }>('SELECT name FROM vaults WHERE id = ANY($1) ORDER BY name', [
        [json.json()['id'], form.json()['id'], none.json()['id']],
      ]);
      expect(names.map((r) => r.name)).toEqual(['From JSON', 'From form', 'My vault']);
    });

    it('refuses a deep body and a __proto__ key with 400, storing nothing', async () => {
      const before = await vaultCount();
      const deep = `{"name":"deep","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      expectProblemReply(await send('POST', '/vault', deep, { 'content-type': 'application/json' }), 400, 'validation_failed');
      const proto = await send('POST', '/vault', '{"name":"p","__proto__":{"default":false}}', {
        'content-type': 'application/json',
      });
      expect(expectProblemReply(proto, 400, 'validation_failed')['errors']).toEqual([
        { field: '__proto__', message: 'property __proto__ should not exist' },
      ]);
      expect(await vaultCount()).toBe(before);
    });

    it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', 'http://img.example/p.png', '/photos/p.png'])(
      'refuses profilePhoto %s',
      async (profilePhoto) => {
        const res = await t.post(owner, '/vault', { profilePhoto }).expect(400);
        expect(res.body.errors).toEqual([
          {
            field: 'profilePhoto',
            message: 'profilePhoto must be an https URL of at most 2048 characters (http only for localhost)',
          },
        ]);
      },
    );

    it('keeps an https profilePhoto (and http for localhost), on creation and update', async () => {
      const id = await t.createVault(owner, { profilePhoto: 'https://img.example/p.png' });
      expect((await t.get(owner, `/vault/vault-id/${id}`).expect(200)).body.profilePhoto).toBe('https://img.example/p.png');
      await t.put(owner, `/vault/vault-id/${id}`, { profilePhoto: 'javascript:alert(1)' }).expect(400);
      const updated = await t.put(owner, `/vault/vault-id/${id}`, { profilePhoto: 'http://localhost:4200/p.png' }).expect(201);
      expect(updated.body.profilePhoto).toBe('http://localhost:4200/p.png');
    });
  });

  describe('recordDetails', () => {
    let vaultId: string;
    beforeEach(async () => {
      vaultId = await t.createVault(owner);
    });

    it('refuses recordDetails 10,000 levels deep (object or JSON string) with 400, not 500', async () => {
      const path = `/vault/vault-id/${vaultId}/records`;
      const deepObject = JSON.stringify(recordBody({ recordDetails: {} })).replace(
        '"recordDetails":{}',
        `"recordDetails":${nestedJson(10_000)}`,
      );
      expectProblemReply(await send('POST', path, deepObject, { 'content-type': 'application/json' }), 400, 'validation_failed');
      const deepString = recordBody({ recordDetails: nestedJson(10_000) });
      const res = await t.post(owner, path, deepString).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['recordDetails']);
      expect(await t.sql('SELECT id FROM records WHERE vault_id = $1', [vaultId])).toEqual([]);
    });

    it(`stores recordDetails nested up to the limit (${MAX_JSON_DEPTH - 1} levels below the body), as object or string`, async () => {
      const details = nested(MAX_JSON_DEPTH - 1);
      const asObject = await t.createRecord(owner, vaultId, { recordDetails: details });
      const asString = await t.createRecord(owner, vaultId, { name: 'second', recordDetails: JSON.stringify(details) });
      for (const id of [asObject, asString]) {
        const view = await t.get(owner, `/vault/vault-id/${vaultId}/records/record-id/${id}`).expect(200);
        expect(view.body.recordDetails).toMatchObject(details);
      }
      const tooDeep = recordBody({ recordDetails: nested(MAX_JSON_DEPTH) });
      await t.post(owner, `/vault/vault-id/${vaultId}/records`, tooDeep).expect(400);
    });

    it('refuses a constructor key inside recordDetails, naming it', async () => {
      const res = await t
        .post(owner, `/vault/vault-id/${vaultId}/records`, recordBody({ recordDetails: { folder: [{ constructor: 'x' }] } }))
        .expect(400);
      expect(res.body.errors).toEqual([
        { field: 'recordDetails.folder.0.constructor', message: 'property constructor should not exist' },
      ]);
    });
  });
});
