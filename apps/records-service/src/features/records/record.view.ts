import type { RecordFileListItem, RecordLookupView, RecordRole, RecordSearchItem, VaultRole } from '@vault/contracts';
import { inLocale } from '../../capabilities/catalogue/catalogue.service';
import type { RecordSubtypeEntity, RecordTypeEntity } from '../../persistence/record-types/record-type.entity';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import { toListItem } from '../files/record-file.view';
import type { Contributor } from '../../persistence/memberships/membership.repository';
import type { RecordEntity } from '../../persistence/records/record.entity';
import type { RecordSearchRow } from '../../persistence/records/record.repository';

const typeRef = (t: RecordTypeEntity | RecordSubtypeEntity, locale?: string) => ({
  id: t.id,
  name: t.name,
  logo: t.logo,
  displayValue: inLocale(t.displayValue, locale),
});

/** An entry of a record's `filesHistory`: the file-list fields plus its submission. */
export interface FileHistoryEntry extends RecordFileListItem {
  correlationId: string;
  uploadTitle: string | null;
}

function toFileHistoryEntry(vaultId: string, f: RecordFileEntity): FileHistoryEntry {
  return { ...toListItem(vaultId, f), correlationId: f.correlationId, uploadTitle: f.uploadTitle };
}

export function toLookupView(
  r: RecordEntity,
  type: RecordTypeEntity,
  subtype: RecordSubtypeEntity,
  vaultRole: VaultRole | undefined,
  recordRole: RecordRole | undefined,
  files: RecordFileEntity[],
): RecordLookupView {
  const details = r.recordDetails ?? {};
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    uniqueReference: r.uniqueReference,
    storageLocation: r.storageLocation,
    recordSubtypeOther: r.recordSubtypeOther,
    editable: r.editable,
    status: r.status,
    active: r.active,
    lastModifiedBy: r.lastModifiedBy,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    recordDetails: {
      ...details,
      cloudStorageFolder: Array.isArray(details['cloudStorageFolder']) ? details['cloudStorageFolder'] : [],
    },
    recordSubtype: { ...typeRef(subtype), orderId: subtype.orderId, blockSections: { ...subtype.blockSections } },
    recordType: { ...typeRef(type), orderId: type.orderId, vaultType: type.vaultType },
    filesHistory: files.map((f) => toFileHistoryEntry(r.vaultId, f)),
    userVaultRole: vaultRole ? [vaultRole] : [],
    userRecordRole: recordRole ? [recordRole] : [],
  };
}

export function toSearchItem(
  r: RecordSearchRow,
  type: RecordTypeEntity,
  subtype: RecordSubtypeEntity,
  contributors: Contributor[],
  locale?: string,
): RecordSearchItem {
  return {
    id: r.id,
    name: r.name,
    storageLocation: r.storageLocation,
    recordSubtypeOther: r.recordSubtypeOther,
    description: r.description,
    recordSubtype: typeRef(subtype, locale),
    recordType: typeRef(type, locale),
    status: r.status,
    updatedAt: r.updatedAt.toISOString(),
    lastModifiedBy: r.lastModifiedBy,
    contributors: contributors.map((c) => c.openId),
    contributorDetails: contributors.map(({ openId, firstName, lastName, role }) => ({ openId, firstName, lastName, role })),
    editable: r.editable ?? true,
  };
}
