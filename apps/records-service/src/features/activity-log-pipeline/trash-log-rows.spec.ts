import { randomUUID } from 'node:crypto';
import { SUBJECTS } from '@vault/contracts';
import { parseEvent, toLogRows } from './activity-log.mapper';

const base = () => ({
  tenantId: 't1',
  actor: { openId: 'vault|ann', username: 'Ann' },
  vault: { id: randomUUID(), name: 'Home' },
  occurredAt: '2026-11-27T10:00:00.000Z',
});
const record = { id: randomUUID(), name: 'Passport' };
const file = { fileName: 'scan.pdf', correlationId: '260101120000', fileType: 'document', fileSize: 10 };

describe('activity log rows of the trash lifecycle', () => {
  it.each([
    [SUBJECTS.recordTrashed, 'Record', 'Delete', 'trashed'],
    [SUBJECTS.recordRestored, 'Record', 'Update', 'restored'],
    [SUBJECTS.recordPurged, 'Record', 'Delete', 'purged'],
  ])('maps %s to %s/%s "%s"', (subject, entity, eventType, action) => {
    const body = { ...base(), record, recordTypeName: 'identityDocs', purgeAt: '2026-12-27T10:00:00.000Z' };
    const [row] = toLogRows('e1', subject, parseEvent(subject, body));
    expect(row).toMatchObject({ entity, eventType, action, recordId: record.id, recordName: 'Passport' });
  });

  it('maps file and vault transitions, keeping the file name', () => {
    const trashed = toLogRows(
      'e2',
      SUBJECTS.fileTrashed,
      parseEvent(SUBJECTS.fileTrashed, { ...base(), record, recordTypeName: 'x', ...file }),
    );
    expect(trashed[0]).toMatchObject({ entity: 'File', action: 'trashed', fileName: 'scan.pdf' });
    const vault = toLogRows('e3', SUBJECTS.vaultPurged, parseEvent(SUBJECTS.vaultPurged, { ...base(), changedFields: [] }));
    expect(vault[0]).toMatchObject({ entity: 'Vault', eventType: 'Delete', action: 'purged' });
  });

  it('refuses a trash event whose purgeAt is not a date', () => {
    expect(() => parseEvent(SUBJECTS.vaultTrashed, { ...base(), changedFields: [], purgeAt: 'soon' })).toThrow(/purgeAt/);
  });
});
