import { randomUUID } from 'node:crypto';
import { SUBJECTS } from '@vault/contracts';
import { InvalidEventError, parseEvent, toLogRows } from './activity-log.mapper';

const base = () => ({
  tenantId: 't1',
  actor: { openId: 'vault|ann', username: 'Ann' },
  vault: { id: randomUUID(), name: 'Home' },
  occurredAt: '2026-11-22T10:00:00.000Z',
});
const record = { id: randomUUID(), name: 'Passport' };

describe('activity log mapper', () => {
  it('maps a record event to one row', () => {
    const body = { ...base(), record, recordTypeName: 'identityDocs' };
    const rows = toLogRows('e1', SUBJECTS.recordCreated, parseEvent(SUBJECTS.recordCreated, body));
    expect(rows).toEqual([
      expect.objectContaining({
        eventId: 'e1',
        vaultId: body.vault.id,
        entity: 'Record',
        eventType: 'Create',
        action: 'created',
        actorName: 'Ann',
        recordId: record.id,
        recordName: 'Passport',
        fileName: null,
        occurredAt: new Date(body.occurredAt),
      }),
    ]);
  });

  it('maps a transfer to a row in each vault', () => {
    const destinationVault = { id: randomUUID(), name: 'Work' };
    const body = { ...base(), record, recordTypeName: 'identityDocs', destinationVault };
    const rows = toLogRows('e2', SUBJECTS.recordTransferred, parseEvent(SUBJECTS.recordTransferred, body));
    expect(rows.map((r) => [r.vaultId, r.vaultName, r.action, r.details])).toEqual([
      [body.vault.id, 'Home', 'transferredOut', { otherVault: destinationVault }],
      [destinationVault.id, 'Work', 'transferredIn', { otherVault: body.vault }],
    ]);
  });

  it('maps file events with their file name', () => {
    const body = {
      ...base(),
      record,
      recordTypeName: 'identityDocs',
      fileName: 'scan.pdf',
      correlationId: 'c1',
      fileType: 'document',
      fileSize: 10,
    };
    const [row] = toLogRows('e3', SUBJECTS.fileUploaded, parseEvent(SUBJECTS.fileUploaded, body));
    expect(row).toMatchObject({ entity: 'File', eventType: 'Create', action: 'uploaded', fileName: 'scan.pdf' });
    const [del] = toLogRows('e4', SUBJECTS.fileDeleted, parseEvent(SUBJECTS.fileDeleted, body));
    expect(del).toMatchObject({ eventType: 'Delete', action: 'deleted', recordName: 'Passport' });
  });

  it('maps the exports of a vault key and of a file as .age with their actor', () => {
    const key = toLogRows('e7', SUBJECTS.vaultKeyExported, parseEvent(SUBJECTS.vaultKeyExported, base()));
    expect(key).toEqual([
      expect.objectContaining({
        entity: 'Vault',
        eventType: 'Export',
        action: 'keyExported',
        actorOpenId: 'vault|ann',
        recordId: null,
      }),
    ]);
    const file = {
      ...base(),
      record,
      recordTypeName: 'identityDocs',
      fileName: 'scan.pdf',
      correlationId: 'c1',
      fileType: 'document',
      fileSize: 10,
    };
    const [row] = toLogRows('e8', SUBJECTS.fileExported, parseEvent(SUBJECTS.fileExported, file));
    expect(row).toMatchObject({
      entity: 'File',
      eventType: 'Export',
      action: 'exported',
      fileName: 'scan.pdf',
      recordName: 'Passport',
      actorName: 'Ann',
    });
    expect(() => parseEvent(SUBJECTS.fileExported, base())).toThrow(InvalidEventError);
  });

  it('maps vault and licence events', () => {
    const vault = { ...base(), changedFields: ['name'] };
    expect(toLogRows('e5', SUBJECTS.vaultUpdated, parseEvent(SUBJECTS.vaultUpdated, vault))[0]).toMatchObject({
      entity: 'Vault',
      eventType: 'Update',
      details: { changedFields: ['name'] },
    });
    const licence = { ...base(), subscriptionId: randomUUID(), planId: 'basic', sponsored: false };
    expect(toLogRows('e6', SUBJECTS.licenseCreated, parseEvent(SUBJECTS.licenseCreated, licence))[0]).toMatchObject({
      entity: 'License',
      eventType: 'Create',
    });
  });

  it('rejects unknown subjects and payloads not matching their class', () => {
    expect(() => parseEvent('vault.unknown.v1', base())).toThrow(InvalidEventError);
    expect(() => parseEvent(SUBJECTS.recordCreated, base())).toThrow(/record/);
    expect(() => parseEvent(SUBJECTS.recordCreated, [])).toThrow(InvalidEventError);
    expect(() => parseEvent(SUBJECTS.vaultCreated, { ...base(), actor: {}, changedFields: [] })).toThrow(/actor/);
  });

  it('maps collaborator events to Network rows with the collaborator and role in the details', () => {
    const collaborator = { id: randomUUID(), openId: 'vault|bo', username: 'bo@x.org', role: 'rec_viewer' };
    const body = { ...base(), collaborator, record, previousRole: 'rec_info' };
    const [row] = toLogRows('e9', SUBJECTS.collaboratorUpdated, parseEvent(SUBJECTS.collaboratorUpdated, body));
    expect(row).toMatchObject({
      entity: 'Network',
      eventType: 'Update',
      action: 'roleChanged',
      recordId: record.id,
      details: { collaborator: { openId: 'vault|bo', username: 'bo@x.org' }, role: 'rec_viewer', previousRole: 'rec_info' },
    });
    const transferBody = { ...base(), collaborator: { ...collaborator, role: 'vault_owner' } };
    const [transfer] = toLogRows('e10', SUBJECTS.vaultTransferred, parseEvent(SUBJECTS.vaultTransferred, transferBody));
    expect(transfer).toMatchObject({ entity: 'Network', action: 'ownershipTransferred', recordId: null });
    // a claim is the same subject and event type, with its own action
    const claimBody = { ...transferBody, previousRole: 'vault_editor', claimed: true };
    const [claim] = toLogRows('e11', SUBJECTS.vaultTransferred, parseEvent(SUBJECTS.vaultTransferred, claimBody));
    expect(claim).toMatchObject({
      entity: 'Network',
      eventType: 'Update',
      action: 'ownershipClaimed',
      subject: SUBJECTS.vaultTransferred,
    });
    expect(() => parseEvent(SUBJECTS.vaultTransferred, { ...claimBody, claimed: 'yes' })).toThrow(/claimed/);
    // `claimed` on another subject does not make it a claim
    const [shared] = toLogRows(
      'e12',
      SUBJECTS.collaboratorCreated,
      parseEvent(SUBJECTS.collaboratorCreated, { ...body, claimed: true }),
    );
    expect(shared.action).toBe('shared');
    const broken = { ...base(), collaborator: { openId: 'x' } };
    expect(() => parseEvent(SUBJECTS.collaboratorCreated, broken)).toThrow(InvalidEventError);
  });
});
