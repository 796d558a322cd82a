import { randomUUID } from 'node:crypto';
import { SUBJECTS, VAULT_CLOUD_EVENT_PAYLOADS, VAULT_CLOUD_EVENT_TYPE_OF, WEBHOOK_EVENT_TYPES } from '@vault/contracts';
import { parseEvent, toLogRows } from './activity-log.mapper';

const event = (extra: object = {}) => ({
  tenantId: 't1',
  actor: { openId: 'vault|ann', username: 'Ann' },
  vault: { id: randomUUID(), name: 'Home' },
  occurredAt: '2026-11-27T10:00:00.000Z',
  record: { id: randomUUID(), name: 'Lease' },
  recordTypeName: 'identityDocs',
  fileName: 'lease.pdf',
  correlationId: '260101120000',
  fileType: 'document',
  fileSize: 10,
  versionId: randomUUID(),
  versionNumber: 2,
  sha256: 'a'.repeat(64),
  ...extra,
});

describe('file version events', () => {
  it.each([
    [SUBJECTS.fileVersionCreated, 'versionCreated', 'file.version.created'],
    [SUBJECTS.fileVersionRestored, 'versionRestored', 'file.version.restored'],
  ])('log %s as a File update "%s" and show it to clients as %s', (subject, action, type) => {
    const body = event(subject === SUBJECTS.fileVersionRestored ? { restoredFromVersionId: randomUUID() } : {});
    const [row] = toLogRows('e1', subject, parseEvent(subject, body));
    expect(row).toMatchObject({ entity: 'File', eventType: 'Update', action, fileName: 'lease.pdf', recordName: 'Lease' });
    expect(row.details).toEqual({ versionId: body.versionId, versionNumber: 2 });
    expect(VAULT_CLOUD_EVENT_TYPE_OF[subject]).toBe(type);
    expect(WEBHOOK_EVENT_TYPES).toContain(type);
    expect(VAULT_CLOUD_EVENT_PAYLOADS[subject]).toBeDefined();
  });

  it('refuses a version event without its version fields', () => {
    expect(() => parseEvent(SUBJECTS.fileVersionCreated, event({ versionId: undefined }))).toThrow(/versionId/);
    expect(() => parseEvent(SUBJECTS.fileVersionCreated, event({ sha256: 'nope' }))).toThrow(/sha256/);
  });
});
