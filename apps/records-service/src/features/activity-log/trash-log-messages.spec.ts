import { ActivityLogEntryEntity } from '../../persistence/activity-log/activity-log-entry.entity';
import { renderEntry } from './activity-log.renderer';

const entry = (over: Partial<ActivityLogEntryEntity>): ActivityLogEntryEntity =>
  Object.assign(new ActivityLogEntryEntity(), {
    eventId: 'e1',
    vaultId: 'v1',
    tenantId: 't',
    subject: 'vault.record.trashed.v1',
    entity: 'Record',
    eventType: 'Delete',
    action: 'trashed',
    actorOpenId: 'vault|ann',
    actorName: 'Ann',
    vaultName: 'Home',
    recordId: 'r1',
    recordName: 'Passport',
    fileName: null,
    details: {},
    occurredAt: new Date('2026-11-27T15:04:00Z'),
    loggedAt: new Date(),
    ...over,
  });

describe('activity log messages of the trash lifecycle', () => {
  it('renders trashed, restored and purged in English and Spanish', () => {
    expect(renderEntry(entry({}), 'en-US').message).toBe('<b>Ann</b> moved to the trash the record <b>Passport</b>');
    expect(renderEntry(entry({}), 'es-US').message).toBe('<b>Ann</b> movió a la papelera el registro <b>Passport</b>');
    const restored = entry({ entity: 'File', action: 'restored', fileName: 'a.pdf' });
    expect(renderEntry(restored, 'en-CA').message).toBe(
      '<b>Ann</b> restored from the trash the file <b>a.pdf</b> of the record <b>Passport</b>',
    );
    const purged = entry({ entity: 'Vault', action: 'purged', recordId: null, recordName: null });
    expect(renderEntry(purged, 'es-US').message).toBe('<b>Ann</b> eliminó definitivamente la bóveda <b>Home</b>');
  });
});
