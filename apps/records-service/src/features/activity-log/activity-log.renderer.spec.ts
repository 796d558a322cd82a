import { ActivityLogEntryEntity } from '../../persistence/activity-log/activity-log-entry.entity';
import { renderEntry } from './activity-log.renderer';

const entry = (over: Partial<ActivityLogEntryEntity>): ActivityLogEntryEntity =>
  Object.assign(new ActivityLogEntryEntity(), {
    eventId: 'e1',
    vaultId: 'v1',
    tenantId: 't',
    subject: 'vault.record.created.v1',
    entity: 'Record',
    eventType: 'Create',
    action: 'created',
    actorOpenId: 'vault|ann',
    actorName: 'Ann',
    vaultName: 'Home',
    recordId: 'r1',
    recordName: 'Passport',
    fileName: null,
    details: {},
    occurredAt: new Date('2026-11-22T15:04:00Z'),
    loggedAt: new Date(),
    ...over,
  });

describe('renderEntry', () => {
  it('renders English with escaped names', () => {
    const dto = renderEntry(entry({ actorName: 'A<b>&"', recordName: "O'Brien <x>" }), 'en-US');
    expect(dto.message).toBe('<b>A&lt;b&gt;&amp;&quot;</b> created the record <b>O&#39;Brien &lt;x&gt;</b>');
    expect(dto).toMatchObject({ user: 'A<b>&"', action: 'created', rawTime: '2026-11-22T15:04:00.000Z' });
    expect(dto.time).toBe('Nov 22, 2026, 03:04 PM UTC');
  });

  it('renders Spanish for es-US', () => {
    const dto = renderEntry(entry({ entity: 'File', action: 'uploaded', fileName: 'a.pdf' }), 'es-US');
    expect(dto.message).toBe('<b>Ann</b> subió el archivo <b>a.pdf</b> al registro <b>Passport</b>');
    expect(dto.action).toBe('subió');
    expect(dto.time).toMatch(/^22 nov 2026/);
  });

  it('names the other vault of a transfer', () => {
    const out = entry({ action: 'transferredOut', details: { otherVault: { id: 'v2', name: 'Work' } } });
    expect(renderEntry(out, 'en-CA').message).toBe('<b>Ann</b> transferred the record <b>Passport</b> to the vault <b>Work</b>');
    expect(renderEntry({ ...out, action: 'transferredIn' } as ActivityLogEntryEntity, 'es-US').message).toBe(
      '<b>Ann</b> transfirió el registro <b>Passport</b> desde la bóveda <b>Work</b>',
    );
  });

  it('renders vault, licence and file deletions', () => {
    expect(renderEntry(entry({ entity: 'Vault', action: 'deleted' }), 'en-US').message).toBe(
      '<b>Ann</b> deleted the vault <b>Home</b>',
    );
    expect(renderEntry(entry({ entity: 'License' }), 'es-US').message).toBe(
      '<b>Ann</b> creó una licencia para la bóveda <b>Home</b>',
    );
    expect(renderEntry(entry({ entity: 'File', action: 'deleted', fileName: 'x.png' }), 'en-US').message).toBe(
      '<b>Ann</b> deleted the file <b>x.png</b> from the record <b>Passport</b>',
    );
  });

  it('renders Network entries: sharing, role changes, removals and ownership transfers, in both languages', () => {
    const network = (action: string, over: Partial<ActivityLogEntryEntity> = {}) =>
      entry({
        entity: 'Network',
        action,
        recordId: null,
        recordName: null,
        details: { collaborator: { openId: 'vault|bo', username: 'bo@x.org' }, role: 'vault_editor' },
        ...over,
      });
    expect(renderEntry(network('shared'), 'en-US').message).toBe(
      '<b>Ann</b> shared the vault <b>Home</b> with <b>bo@x.org</b> as <b>vault_editor</b>',
    );
    expect(renderEntry(network('shared', { recordId: 'r1', recordName: 'Passport' }), 'es-US').message).toBe(
      '<b>Ann</b> compartió el registro <b>Passport</b> con <b>bo@x.org</b> como <b>vault_editor</b>',
    );
    expect(renderEntry(network('roleChanged'), 'en-CA').message).toBe(
      '<b>Ann</b> changed the role of <b>bo@x.org</b> on the vault <b>Home</b> to <b>vault_editor</b>',
    );
    expect(renderEntry(network('unshared'), 'en-US').message).toBe(
      '<b>Ann</b> removed <b>bo@x.org</b> from the vault <b>Home</b>',
    );
    expect(renderEntry(network('ownershipTransferred'), 'es-US').message).toBe(
      '<b>Ann</b> transfirió la propiedad de la bóveda <b>Home</b> a <b>bo@x.org</b>',
    );
    expect(renderEntry(network('shared'), 'en-US').entity).toBe('Network');
  });

  it('renders a claim of the ownership as a claim, not as a transfer to oneself, and names no deleted owner', () => {
    const claim = entry({
      entity: 'Network',
      action: 'ownershipClaimed',
      actorName: 'grace',
      recordId: null,
      recordName: null,
      details: { collaborator: { openId: 'vault|grace', username: 'grace' }, role: 'vault_owner', previousRole: 'vault_editor' },
    });
    expect(renderEntry(claim, 'en-US')).toMatchObject({
      action: 'claimed',
      message: "<b>grace</b> claimed the ownership of the vault <b>Home</b> after its owner's account was deleted",
    });
    expect(renderEntry(claim, 'es-US')).toMatchObject({
      action: 'reclamó',
      message: '<b>grace</b> reclamó la propiedad de la bóveda <b>Home</b> tras la eliminación de la cuenta de su propietario',
    });
  });
});

describe('renderEntry of the trash lifecycle', () => {
  it('renders trashed, restored and purged in English and Spanish', () => {
    const trashed = entry({ subject: 'vault.record.trashed.v1', eventType: 'Delete', action: 'trashed' });
    expect(renderEntry(trashed, 'en-US').message).toBe('<b>Ann</b> moved to the trash the record <b>Passport</b>');
    expect(renderEntry(trashed, 'es-US').message).toBe('<b>Ann</b> movió a la papelera el registro <b>Passport</b>');
    const restored = entry({ entity: 'File', action: 'restored', fileName: 'a.pdf' });
    expect(renderEntry(restored, 'en-CA').message).toBe(
      '<b>Ann</b> restored from the trash the file <b>a.pdf</b> of the record <b>Passport</b>',
    );
    const purged = entry({ entity: 'Vault', action: 'purged', recordId: null, recordName: null });
    expect(renderEntry(purged, 'es-US').message).toBe('<b>Ann</b> eliminó definitivamente la bóveda <b>Home</b>');
  });
});

describe('renderEntry of exports', () => {
  it('renders the export of the vault key and of a file as .age in English and Spanish', () => {
    const key = entry({ entity: 'Vault', eventType: 'Export', action: 'keyExported', recordId: null, recordName: null });
    expect(renderEntry(key, 'en-US').message).toBe('<b>Ann</b> exported the encryption key of the vault <b>Home</b>');
    expect(renderEntry(key, 'es-US').message).toBe('<b>Ann</b> exportó la clave de cifrado de la bóveda <b>Home</b>');
    const file = entry({ entity: 'File', eventType: 'Export', action: 'exported', fileName: 'a.pdf' });
    expect(renderEntry(file, 'en-US').message).toBe(
      '<b>Ann</b> exported the file <b>a.pdf</b> of the record <b>Passport</b> as an encrypted .age file',
    );
    expect(renderEntry(file, 'es-US').message).toBe(
      '<b>Ann</b> exportó el archivo <b>a.pdf</b> del registro <b>Passport</b> como archivo cifrado .age',
    );
  });
});
