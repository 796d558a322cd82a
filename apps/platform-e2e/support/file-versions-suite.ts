import { createHash, randomBytes } from 'node:crypto';
import { bob, call, cy, tokenFor } from './client';
import { uploadFile } from './uploads';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * File versions and the vault's storage usage through the gateway (docs/files.md, Versions).
 *
 * Run against the shared platform (filesystem store, src/file-versions.spec.ts) and against one
 * on the loopback S3 (src/trash-s3.spec.ts); `store` names it in the titles.
 */
export function describeFileVersions(store: string): void {
  describe(`file versions through the gateway (${store})`, () => {
    let owner: string;
    let sameTenant: string;
    let otherTenant: string;
    let vaultId: string;
    let files: string;

    const send = (bytes: Buffer, replace?: boolean) => uploadFile(owner, files, 'will.pdf', bytes, { replace });

    beforeAll(async () => {
      [owner, sameTenant, otherTenant] = await Promise.all([
        tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'fay@alpha.example', 'fay-password-1'),
        bob(),
        cy(),
      ]);
      const vault = await call('records', 'POST', '/vault', { token: owner, body: { name: 'Versions e2e' } });
      expect(vault.status).toBe(201);
      vaultId = vault.body.id;
      const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
        token: owner,
        body: { name: 'Will', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
      });
      expect(record.status).toBe(200);
      files = `/vault/vault-id/${vaultId}/records/record-id/${record.body.id}/record-files`;
    });

    it('replaces, lists, downloads, restores and pins versions; usage shows them', async () => {
      const v1 = randomBytes(3000);
      const v2 = randomBytes(1000);
      expect((await send(v1)).status).toBe(201);
      const taken = await send(v2);
      expect(taken.status).toBe(409);
      expect(taken.body.code).toBe('file_name_taken');
      const replaced = await send(v2, true);
      expect(replaced.status).toBe(201);
      expect(replaced.body).toMatchObject({ fileSize: 1000, __v: 1 });

      const versions = `${files}/will.pdf/versions`;
      const list = await call('records', 'GET', versions, { token: owner });
      expect(list.status).toBe(200);
      expect(list.body.map((v: { number: number; current: boolean }) => [v.number, v.current])).toEqual([
        [2, true],
        [1, false],
      ]);
      const first = `${versions}/version-id/${list.body[1].id}`;
      const old = await call('records', 'GET', first, { token: owner });
      expect(old.status).toBe(200);
      expect(old.headers['etag']).toBe(`"${sha256(v1)}"`);
      const range = await call('records', 'GET', first, { token: owner, headers: { range: 'bytes=0-9' } });
      expect(range.status).toBe(206);
      expect(range.headers['content-range']).toBe('bytes 0-9/3000');

      const restored = await call('records', 'POST', `${first}/restore`, { token: owner });
      expect(restored.status).toBe(201);
      expect(restored.body).toMatchObject({ number: 3, current: true, sha256: sha256(v1), restoredFrom: list.body[1].id });
      const current = await call('records', 'GET', `${files}/will.pdf`, { token: owner });
      expect(current.headers['etag']).toBe(`"${sha256(v1)}"`);

      const pinned = await call('records', 'PUT', first, { token: owner, body: { pinned: true } });
      expect(pinned.status).toBe(200);
      expect(pinned.body.pinned).toBe(true);

      // v1 and v3 share one blob: 3000 + 1000 bytes stored
      const usage = await call('records', 'GET', `/vault/vault-id/${vaultId}/usage`, { token: owner });
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({ storedBytes: 4000, currentBytes: 3000, versionBytes: 1000, trashBytes: 0 });
    });

    it('hides versions from strangers (404) and asks for a token (401)', async () => {
      const versions = `${files}/will.pdf/versions`;
      for (const token of [sameTenant, otherTenant]) {
        expect((await call('records', 'GET', versions, { token })).status).toBe(404);
        expect((await call('records', 'GET', `/vault/vault-id/${vaultId}/usage`, { token })).status).toBe(404);
      }
      const unknown = await call('records', 'GET', `${versions}/version-id/00000000-0000-4000-8000-000000000000`, {
        token: owner,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not_found');
      expect((await call('records', 'GET', versions)).status).toBe(401);
    });
  });
}
