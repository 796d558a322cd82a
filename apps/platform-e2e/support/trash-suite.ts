import { call } from './client';
import { sharedVault } from './people';
import { uploadFile } from './uploads';

/**
 * The trash, retention and legal holds through the gateway (docs/records-api.md, Trash;
 * Retention and legal holds): every role and none, and the compliance officer whose role
 * the developer module signs into the token.
 *
 * Run against the shared platform (records-service on the filesystem store, src/trash.spec.ts)
 * and against one on the loopback S3 (src/trash-s3.spec.ts); `store` names it in the titles.
 */
export function describeTrash(store: string): void {
  describe(`trash and legal holds through the gateway (${store})`, () => {
    let owner: string;
    let editor: string;
    let viewer: string;
    let stranger: string;
    let otherTenant: string;
    let officer: string;
    let vaultId: string;
    let recordId: string;
    let fileId: string;
    const records = () => `/vault/vault-id/${vaultId}/records`;
    const files = () => `${records()}/record-id/${recordId}/record-files`;

    beforeAll(async () => {
      ({ owner, editor, viewer, stranger, otherTenant, officer, vaultId } = await sharedVault(
        [
          ['tom', 'Tom'],
          ['tess', 'Tess'],
          ['vic', 'Vic'],
        ],
        'Trash',
        'Trash e2e',
      ));
      const record = await call('records', 'POST', records(), {
        token: owner,
        body: { name: 'Will', description: '', recordTypeName: 'legalDocs', recordSubtypeName: 'wills' },
      });
      expect(record.status).toBe(200);
      recordId = record.body.id;
      const up = await uploadFile(owner, files(), 'will.pdf', Buffer.from('%PDF-1.4 will'));
      expect(up.status).toBe(201);
      fileId = up.body._id;
    });

    it('a deleted file leaves every read, waits in the trash for editors, and comes back', async () => {
      const deleted = await call('records', 'DELETE', `${files()}/will.pdf`, { token: editor });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ fileName: 'will.pdf' });
      expect((await call('records', 'GET', `${files()}/will.pdf`, { token: owner })).status).toBe(404);

      const trash = `/vault/vault-id/${vaultId}/trash`;
      const listed = await call('records', 'GET', trash, { token: editor });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        data: [expect.objectContaining({ id: fileId, kind: 'file', name: 'will.pdf', recordId, vaultId })],
        nextCursor: null,
      });
      expect((await call('records', 'GET', trash, { token: viewer })).status).toBe(403);
      expect((await call('records', 'GET', trash, { token: stranger })).status).toBe(404);
      expect((await call('records', 'GET', trash, { token: otherTenant })).status).toBe(404);
      expect((await call('records', 'GET', trash)).status).toBe(401);

      const restore = `/trash/item-id/${fileId}/restore`;
      expect((await call('records', 'POST', restore, { token: viewer })).status).toBe(403);
      expect((await call('records', 'POST', restore, { token: stranger })).status).toBe(404);
      expect((await call('records', 'POST', restore, { token: otherTenant })).status).toBe(404);
      expect((await call('records', 'POST', restore)).status).toBe(401);
      const unknown = await call('records', 'POST', `/trash/item-id/00000000-0000-4000-8000-000000000000/restore`, {
        token: owner,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
      const back = await call('records', 'POST', restore, { token: editor });
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ id: fileId, kind: 'file', name: 'will.pdf', vaultId, recordId });
      expect((await call('records', 'GET', `${files()}/will.pdf`, { token: viewer })).status).toBe(200);
    });

    it('a legal hold placed by a compliance officer refuses the purge; released, the purge goes through', async () => {
      const denied = await call('records', 'POST', '/legal-holds', { token: owner, body: { vaultId, recordId, name: 'Case 7' } });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('compliance_role_required');
      const placed = await call('records', 'POST', '/legal-holds', {
        token: officer,
        body: { vaultId, recordId, name: 'Case 7' },
      });
      expect(placed.status).toBe(201);
      expect(placed.headers['location']).toBe(`/api/v1/legal-holds/hold-id/${placed.body.id}`);

      const retention = await call('records', 'GET', `${records()}/record-id/${recordId}/retention`, { token: viewer });
      expect(retention.status).toBe(200);
      expect(retention.body).toMatchObject({
        kind: 'record',
        purgeBlocked: true,
        holds: [expect.objectContaining({ name: 'Case 7' })],
      });

      expect((await call('records', 'DELETE', `${records()}/record-id/${recordId}`, { token: owner })).status).toBe(200);
      const purge = `/trash/item-id/${recordId}`;
      expect((await call('records', 'DELETE', purge, { token: viewer })).status).toBe(403);
      expect((await call('records', 'DELETE', purge, { token: stranger })).status).toBe(404);
      const held = await call('records', 'DELETE', purge, { token: owner });
      expect(held.status).toBe(409);
      expect(held.body).toMatchObject({ code: 'legal_hold', detail: expect.stringContaining('Case 7') });

      const released = await call('records', 'DELETE', `/legal-holds/hold-id/${placed.body.id}`, { token: officer });
      expect(released.status).toBe(200);
      expect((await call('records', 'DELETE', purge, { token: editor })).status).toBe(200);
      expect((await call('records', 'POST', `${purge}/restore`, { token: owner })).status).toBe(404);
    });

    it("a deleted vault is in its owner's trash only, and comes back whole", async () => {
      expect((await call('records', 'DELETE', `/vault/vault-id/${vaultId}`, { token: owner })).status).toBe(200);
      expect((await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: editor })).status).toBe(404);
      const mine = await call('records', 'GET', '/trash', { token: owner });
      expect(mine.status).toBe(200);
      expect(mine.body.data).toEqual([expect.objectContaining({ id: vaultId, kind: 'vault', name: 'Trash e2e' })]);
      expect((await call('records', 'GET', '/trash', { token: editor })).body.data).toEqual([]);
      expect((await call('records', 'POST', `/trash/item-id/${vaultId}/restore`, { token: editor })).status).toBe(403);
      expect((await call('records', 'POST', `/trash/item-id/${vaultId}/restore`, { token: owner })).status).toBe(200);
      const collaborators = await call('records', 'GET', `/vault/vault-id/${vaultId}/collaborators`, { token: editor });
      expect(collaborators.status).toBe(200);
      expect(collaborators.body.map((m: { role: string }) => m.role).sort()).toEqual([
        'vault_editor',
        'vault_owner',
        'vault_viewer',
      ]);
    });
  });
}
