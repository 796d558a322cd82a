import { SUBJECTS, VAULT_CLOUD_EVENT_PAYLOADS, VAULT_CLOUD_EVENT_TYPE_OF, WEBHOOK_EVENT_TYPES } from '@vault/contracts';
import { parseEvent, toLogRows } from '../../src/features/activity-log-pipeline/activity-log.mapper';

/** vault.file.text_extracted.v1 as each consumer of the vault events takes it. */
describe('the file.text.extracted event', () => {
  const payload = {
    tenantId: 'tenant-a',
    actor: { openId: 'vault|1', username: 'ann' },
    vault: { id: '5b0c8f0e-8f1e-4c5e-9a37-0d1b1c3c2a11', name: 'Home' },
    occurredAt: '2026-11-27T12:00:00.000Z',
    record: { id: '6c1d9f1f-9f2f-4d6f-8b48-1e2c2d4d3b22', name: 'Policy' },
    recordTypeName: 'identityDocs',
    fileName: 'policy.pdf',
    correlationId: '260101120000',
    fileType: 'document',
    fileSize: 1234,
    versionId: '7d2e0a20-0a30-4e70-9c59-2f3d3e5e4c33',
    status: 'failed',
    pages: 0,
    reason: 'encrypted',
  };

  it('is accepted by the activity-log writer and logs nothing (no dead letter)', () => {
    const event = parseEvent(SUBJECTS.fileTextExtracted, payload);
    expect(toLogRows('e1', SUBJECTS.fileTextExtracted, event)).toEqual([]);
    expect(() => parseEvent(SUBJECTS.fileTextExtracted, { ...payload, status: 'maybe' })).toThrow(/invalid/);
  });

  it('is file.text.extracted in webhooks and the change feed', () => {
    expect(VAULT_CLOUD_EVENT_TYPE_OF[SUBJECTS.fileTextExtracted]).toBe('file.text.extracted');
    expect(VAULT_CLOUD_EVENT_PAYLOADS[SUBJECTS.fileTextExtracted]).toBeDefined();
    expect(WEBHOOK_EVENT_TYPES).toContain('file.text.extracted');
  });
});
