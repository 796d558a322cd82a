import { ActivityLogEntryEntity } from '../../persistence/activity-log/activity-log-entry.entity';
import { renderEntry } from './activity-log.renderer';

const entry = (action: string): ActivityLogEntryEntity =>
  Object.assign(new ActivityLogEntryEntity(), {
    eventId: 'e1',
    vaultId: 'v1',
    tenantId: 't',
    subject: 'vault.file.version.created.v1',
    entity: 'File',
    eventType: 'Update',
    action,
    actorOpenId: 'vault|ann',
    actorName: 'Ann',
    vaultName: 'Home',
    recordId: 'r1',
    recordName: 'Lease',
    fileName: 'lease.pdf',
    details: { versionId: 'x', versionNumber: 2 },
    occurredAt: new Date('2026-11-27T15:04:00Z'),
    loggedAt: new Date(),
  });

describe('activity log messages of file versions', () => {
  it('renders a new and a restored version in English and Spanish', () => {
    expect(renderEntry(entry('versionCreated'), 'en-US').message).toBe(
      '<b>Ann</b> uploaded a new version of the file <b>lease.pdf</b> of the record <b>Lease</b>',
    );
    expect(renderEntry(entry('versionCreated'), 'es-US').message).toBe(
      '<b>Ann</b> actualizó con una nueva versión el archivo <b>lease.pdf</b> del registro <b>Lease</b>',
    );
    expect(renderEntry(entry('versionRestored'), 'en-CA').message).toBe(
      '<b>Ann</b> restored an earlier version of the file <b>lease.pdf</b> of the record <b>Lease</b>',
    );
    expect(renderEntry(entry('versionRestored'), 'es-US').message).toBe(
      '<b>Ann</b> devolvió a una versión anterior el archivo <b>lease.pdf</b> del registro <b>Lease</b>',
    );
  });
});
