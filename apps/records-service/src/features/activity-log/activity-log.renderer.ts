import type { ActivityLogEntryDto, FilterLocale, LogEntity } from '@vault/contracts';
import type { ActivityLogView } from '../../persistence/activity-log/activity-log.repository';

type Language = 'en' | 'es';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

const b = (s: string | null | undefined) => `<b>${escapeHtml(s ?? '')}</b>`;

const VERBS: Record<Language, Record<string, string>> = {
  en: {
    created: 'created',
    updated: 'updated',
    deleted: 'deleted',
    uploaded: 'uploaded',
    versionCreated: 'uploaded a new version of',
    versionRestored: 'restored an earlier version of',
    transferredOut: 'transferred',
    transferredIn: 'transferred',
    shared: 'shared',
    roleChanged: 'changed',
    unshared: 'removed',
    ownershipTransferred: 'transferred',
    ownershipClaimed: 'claimed',
    trashed: 'moved to the trash',
    restored: 'restored from the trash',
    purged: 'permanently deleted',
    keyExported: 'exported the encryption key of',
    exported: 'exported',
  },
  es: {
    created: 'creó',
    updated: 'actualizó',
    deleted: 'eliminó',
    uploaded: 'subió',
    versionCreated: 'actualizó con una nueva versión',
    versionRestored: 'devolvió a una versión anterior',
    transferredOut: 'transfirió',
    transferredIn: 'transfirió',
    shared: 'compartió',
    roleChanged: 'cambió',
    unshared: 'retiró',
    ownershipTransferred: 'transfirió',
    ownershipClaimed: 'reclamó',
    trashed: 'movió a la papelera',
    restored: 'restauró de la papelera',
    purged: 'eliminó definitivamente',
    keyExported: 'exportó la clave de cifrado de',
    exported: 'exportó',
  },
};

/** Object phrase of a Network entry: who a vault or record was shared with, as which role. */
function networkPhrase(lang: Language, e: ActivityLogView): string {
  const en = lang === 'en';
  const who = b((e.details['collaborator'] as { username?: string } | undefined)?.username);
  const role = b(e.details['role'] as string | undefined);
  const vault = en ? `the vault ${b(e.vaultName)}` : `la bóveda ${b(e.vaultName)}`;
  const record = en ? `the record ${b(e.recordName)}` : `el registro ${b(e.recordName)}`;
  const target = e.recordId ? record : vault;
  switch (e.action) {
    case 'shared':
      return en ? `${target} with ${who} as ${role}` : `${target} con ${who} como ${role}`;
    case 'roleChanged':
      return en ? `the role of ${who} on ${target} to ${role}` : `el rol de ${who} en ${target} a ${role}`;
    case 'ownershipTransferred':
      return en ? `the ownership of ${target} to ${who}` : `la propiedad de ${target} a ${who}`;
    case 'ownershipClaimed':
      // the actor is the claimant; the former owner's account is deleted and is not named
      return en
        ? `the ownership of ${target} after its owner's account was deleted`
        : `la propiedad de ${target} tras la eliminación de la cuenta de su propietario`;
    default:
      return en ? `${who} from ${target}` : `a ${who} de ${target}`;
  }
}

/** Object phrase of a message per language, by entity and action. */
function objectPhrase(lang: Language, e: ActivityLogView): string {
  const other = (e.details['otherVault'] as { name?: string } | undefined)?.name;
  const en = lang === 'en';
  switch (e.entity) {
    case 'Network':
      return networkPhrase(lang, e);
    case 'Vault':
      return en ? `the vault ${b(e.vaultName)}` : `la bóveda ${b(e.vaultName)}`;
    case 'License':
      return en ? `a license for the vault ${b(e.vaultName)}` : `una licencia para la bóveda ${b(e.vaultName)}`;
    case 'File': {
      const file = en ? `the file ${b(e.fileName)}` : `el archivo ${b(e.fileName)}`;
      if (e.action === 'uploaded')
        return en ? `${file} to the record ${b(e.recordName)}` : `${file} al registro ${b(e.recordName)}`;
      if (e.action === 'deleted')
        return en ? `${file} from the record ${b(e.recordName)}` : `${file} del registro ${b(e.recordName)}`;
      if (e.action === 'exported')
        return en
          ? `${file} of the record ${b(e.recordName)} as an encrypted .age file`
          : `${file} del registro ${b(e.recordName)} como archivo cifrado .age`;
      return en ? `${file} of the record ${b(e.recordName)}` : `${file} del registro ${b(e.recordName)}`;
    }
    default: {
      const record = en ? `the record ${b(e.recordName)}` : `el registro ${b(e.recordName)}`;
      if (e.action === 'transferredOut') return en ? `${record} to the vault ${b(other)}` : `${record} a la bóveda ${b(other)}`;
      if (e.action === 'transferredIn')
        return en ? `${record} from the vault ${b(other)}` : `${record} desde la bóveda ${b(other)}`;
      return record;
    }
  }
}

const TIME_FORMAT: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
};
const formatters = new Map<FilterLocale, Intl.DateTimeFormat>();

function formatTime(at: Date, locale: FilterLocale): string {
  let f = formatters.get(locale);
  if (!f) formatters.set(locale, (f = new Intl.DateTimeFormat(locale, TIME_FORMAT)));
  return f.format(at);
}

/** Renders a stored entry in the requested locale (Spanish for es-*, English otherwise). */
export function renderEntry(e: ActivityLogView, locale: FilterLocale): ActivityLogEntryDto {
  const lang: Language = locale.startsWith('es') ? 'es' : 'en';
  const action = VERBS[lang][e.action] ?? e.action;
  return {
    user: e.actorName,
    action,
    entity: e.entity as LogEntity,
    vaultId: e.vaultId,
    vaultName: e.vaultName,
    time: formatTime(e.occurredAt, locale),
    rawTime: e.occurredAt.toISOString(),
    id: e.eventId,
    recordId: e.recordId,
    recordName: e.recordName,
    fileName: e.fileName,
    message: `${b(e.actorName)} ${action} ${objectPhrase(lang, e)}`,
  };
}
