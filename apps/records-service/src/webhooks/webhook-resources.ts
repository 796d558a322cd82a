import { Injectable } from '@nestjs/common';
import { CollaboratorChangedEvent, FileChangedEvent, RecordChangedEvent } from '@vault/contracts';
import { CatalogueService } from '../catalogue/catalogue.service';
import { RecordsEnv } from '../config/records.env';
import { toCollaboratorView } from '../collaborators/collaborator.view';
import { toFileView } from '../files/record-file.view';
import { LicensesService } from '../plans/licenses.service';
import { CollaboratorRepository } from '../persistence/collaborator.repository';
import { RecordFileRepository } from '../persistence/record-file.repository';
import { Transactions } from '../persistence/transactions';
import { WebhookRepository } from '../persistence/webhook.repository';
import { toLookupView } from '../records/record.view';
import { toVaultView } from '../vaults/vault.view';
import { lastKnown, VaultEvent } from './webhook-envelope';

/**
 * The `data` of a webhook: the resource an event is about, read now and shown as the
 * API answers it (without the caller-specific role fields, which stay empty), or its
 * ids and last known fields from the event when it no longer exists (deletions).
 */
@Injectable()
export class WebhookResources {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly files: RecordFileRepository,
    private readonly members: CollaboratorRepository,
    private readonly licenses: LicensesService,
    private readonly catalogue: CatalogueService,
    private readonly env: RecordsEnv,
    private readonly tx: Transactions,
  ) {}

  async data(e: VaultEvent): Promise<object> {
    if (e.type.endsWith('.deleted')) return lastKnown(e);
    return (await this.current(e)) ?? lastKnown(e);
  }

  private async current(e: VaultEvent): Promise<object | null> {
    const p = e.payload;
    if (p instanceof FileChangedEvent) {
      const f = await this.files.find(p.record.id, p.fileName);
      const record = f && (await this.webhooks.record(f.recordId));
      return f && record ? toFileView(record.vaultId, f) : null;
    }
    if (p instanceof CollaboratorChangedEvent) {
      const [scope, target] = p.record ? (['record', p.record.id] as const) : (['vault', p.vault.id] as const);
      const m = await this.members.byId(this.tx.none, scope, target, p.collaborator.id);
      return m && toCollaboratorView(m);
    }
    if (p instanceof RecordChangedEvent) {
      const r = await this.webhooks.record(p.record.id);
      if (!r) return null;
      const [type, subtype, files] = await Promise.all([
        this.catalogue.type(r.recordTypeId),
        this.catalogue.subtype(r.recordSubtypeId),
        this.files.list(r.id),
      ]);
      return { ...toLookupView(r, type, subtype, undefined, undefined, files), vaultId: r.vaultId };
    }
    const v = await this.webhooks.vault(p.vault.id);
    return v && toVaultView(v, {}, await this.licenses.planOf(v.id), this.env.VAULT_INBOX_DOMAIN);
  }
}
