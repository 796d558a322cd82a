import { Injectable } from '@nestjs/common';
import { CollaboratorChangedEvent, FileChangedEvent, RecordChangedEvent } from '@vault/contracts';
import { CatalogueService } from '../../capabilities/catalogue/catalogue.service';
import { RecordsEnv } from '../../config/records.env';
import { toCollaboratorView } from '../collaborators/collaborator.view';
import { toFileView } from '../files/record-file.view';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import type { Plan } from '../../capabilities/plans/plans-file';
import { CollaboratorRepository, MemberRow, MembershipScope } from '../../persistence/memberships/collaborator.repository';
import { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import { fileKey, RecordFileRepository } from '../../persistence/record-files/record-file.repository';
import { RecordEntity } from '../../persistence/records/record.entity';
import { RecordRepository } from '../../persistence/records/record.repository';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { toLookupView } from '../records/record.view';
import { toVaultView } from '../vaults/vault.view';
import { lastKnown, VaultEvent } from './webhook-envelope';

/** The resources the events of a batch are about, read together. */
interface Resources {
  records: Map<string, RecordEntity>;
  filesOf: Map<string, RecordFileEntity[]>;
  files: Map<string, RecordFileEntity>;
  members: Record<MembershipScope, Map<string, MemberRow>>;
  vaults: Map<string, VaultEntity>;
  plans: Map<string, Plan>;
}

/** Events whose resource is gone from live state: deleted, trashed or purged (`data` from the event). */
const isDeletion = (e: VaultEvent) => /\.(deleted|trashed|purged)$/.test(e.type);

/**
 * The `data` of a webhook: the resource an event is about, read now and shown as the
 * API answers it (without the caller-specific role fields, which stay empty), or its
 * ids and last known fields from the event when it no longer exists (deletions). The
 * resources of a batch's events are read together, one statement per kind for the whole
 * batch (records, the files of those records, single files, vault members, record
 * members, vaults, the vaults' plans), whatever the number of events.
 */
@Injectable()
export class WebhookResources {
  constructor(
    private readonly vaultRows: VaultRepository,
    private readonly recordRows: RecordRepository,
    private readonly files: RecordFileRepository,
    private readonly members: CollaboratorRepository,
    private readonly licenses: LicensesService,
    private readonly catalogue: CatalogueService,
    private readonly env: RecordsEnv,
  ) {}

  /** The `data` of each event, in the order of `events`. */
  async dataOf(events: VaultEvent[]): Promise<object[]> {
    const r = await this.read(events.filter((e) => !isDeletion(e)).map((e) => e.payload));
    return Promise.all(events.map(async (e) => (isDeletion(e) ? null : await this.current(e, r)) ?? lastKnown(e)));
  }

  private async read(ps: VaultEvent['payload'][]): Promise<Resources> {
    const fileEvents = ps.filter((p) => p instanceof FileChangedEvent);
    const memberEvents = ps.filter((p) => p instanceof CollaboratorChangedEvent);
    const recordIds = unique(ps.filter((p) => p instanceof RecordChangedEvent).map((p) => p.record.id));
    const vaultIds = unique(ps.filter((p) => kindOf(p) === 'vault').map((p) => p.vault.id));
    const membersOf = (scope: MembershipScope) =>
      this.members.byIds(
        scope,
        memberEvents
          .filter((p) => (p.record ? 'record' : 'vault') === scope)
          .map((p) => ({ targetId: p.record?.id ?? p.vault.id, id: p.collaborator.id })),
      );
    const [records, filesOf, files, vaultMembers, recordMembers, vaults, plans] = await Promise.all([
      this.recordRows.byIds(unique([...recordIds, ...fileEvents.map((p) => p.record.id)])),
      this.files.listOfRecords(recordIds),
      this.files.findMany(fileEvents.map((p) => ({ recordId: p.record.id, fileName: p.fileName }))),
      membersOf('vault'),
      membersOf('record'),
      this.vaultRows.byIds(vaultIds),
      vaultIds.length ? this.licenses.plansOf(vaultIds) : [],
    ]);
    return {
      records,
      filesOf,
      files,
      members: { vault: vaultMembers, record: recordMembers },
      vaults,
      plans: new Map(vaultIds.map((id, i) => [id, plans[i]])),
    };
  }

  private async current(e: VaultEvent, r: Resources): Promise<object | null> {
    const p = e.payload;
    if (p instanceof FileChangedEvent) {
      const f = r.files.get(fileKey(p.record.id, p.fileName));
      const record = f && r.records.get(f.recordId);
      return f && record ? toFileView(record.vaultId, f) : null;
    }
    if (p instanceof CollaboratorChangedEvent) {
      const m = r.members[p.record ? 'record' : 'vault'].get(p.collaborator.id);
      return m ? toCollaboratorView(m) : null;
    }
    if (p instanceof RecordChangedEvent) {
      const rec = r.records.get(p.record.id);
      if (!rec) return null;
      const [type, subtype] = await Promise.all([
        this.catalogue.type(rec.recordTypeId),
        this.catalogue.subtype(rec.recordSubtypeId),
      ]);
      return { ...toLookupView(rec, type, subtype, undefined, undefined, r.filesOf.get(rec.id) ?? []), vaultId: rec.vaultId };
    }
    const v = r.vaults.get(p.vault.id);
    const plan = r.plans.get(p.vault.id);
    return v && plan ? toVaultView(v, {}, plan, this.env.VAULT_INBOX_DOMAIN) : null;
  }
}

/** Which resource an event's `data` is read from. */
function kindOf(p: VaultEvent['payload']): 'file' | 'member' | 'record' | 'vault' {
  if (p instanceof FileChangedEvent) return 'file';
  if (p instanceof CollaboratorChangedEvent) return 'member';
  return p instanceof RecordChangedEvent ? 'record' : 'vault';
}

const unique = (ids: string[]) => [...new Set(ids)];
