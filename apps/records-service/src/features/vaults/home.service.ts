import { Injectable } from '@nestjs/common';
import type { DisplayLocale, VaultHomeView } from '@vault/contracts';
import { RecordsEnv } from '../../config/records.env';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { CatalogueService, inLocale } from '../../capabilities/catalogue/catalogue.service';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { UsageRepository } from '../../persistence/usage/usage.repository';
import { RecordRepository } from '../../persistence/records/record.repository';
import { inboxAddress, userRoles } from './vault.view';

/** The vault home: one tile per record type with the count of the vault's records the caller sees. */
@Injectable()
export class HomeService {
  constructor(
    private readonly env: RecordsEnv,
    private readonly catalogue: CatalogueService,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly usage: UsageRepository,
    private readonly records: RecordRepository,
  ) {}

  /**
   * Tiles count what the caller sees: every live record for a vault member, the live
   * records shared with it for a record guest. `maxRecordsReached` is the vault's state.
   */
  async home(access: VaultAccess, openId: string, locale?: DisplayLocale): Promise<VaultHomeView> {
    const { vault } = access;
    const plan = await this.licenses.planOf(vault.id);
    const counts = await this.usage.liveRecordsByType(vault.id);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const seen = access.vaultRole ? counts : await this.records.liveByTypeSharedWith(vault.id, openId);
    const types = await this.catalogue.allTypes();
    return {
      id: vault.id,
      name: vault.name,
      firstName: vault.firstName,
      lastName: vault.lastName,
      email: inboxAddress(vault, this.env.VAULT_INBOX_DOMAIN),
      default: vault.isDefault,
      active: vault.active,
      status: vault.status,
      type: vault.type,
      ...userRoles(access),
      subscriptionFeatures: { ...plan.features },
      maxRecordsReached: this.quota.recordsFull(plan, total),
      integrations: null,
      recordsType: types.map((t) => ({
        name: t.name,
        logo: t.logo,
        count: seen.get(t.id) ?? 0,
        displayValue: inLocale(t.displayValue, locale),
      })),
    };
  }
}
