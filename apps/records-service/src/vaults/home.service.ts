import { Injectable } from '@nestjs/common';
import type { DisplayLocale, VaultHomeView } from '@vault/contracts';
import { RecordsEnv } from '../config/records.env';
import type { VaultAccess } from '../access/access.service';
import { CatalogueService, inLocale } from '../catalogue/catalogue.service';
import { LicensesService } from '../plans/licenses.service';
import { QuotaService } from '../plans/quota.service';
import { UsageRepository } from '../persistence/usage.repository';
import { inboxAddress } from './vault.view';

/** The vault home: one tile per record type with the vault's record count. */
@Injectable()
export class HomeService {
  constructor(
    private readonly env: RecordsEnv,
    private readonly catalogue: CatalogueService,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly usage: UsageRepository,
  ) {}

  async home({ vault, vaultRole }: VaultAccess, locale?: DisplayLocale): Promise<VaultHomeView> {
    const plan = await this.licenses.planOf(vault.id);
    const counts = await this.usage.liveRecordsByType(vault.id);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
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
      userVaultRole: vaultRole ? [vaultRole] : [],
      subscriptionFeatures: { ...plan.features },
      maxRecordsReached: this.quota.recordsFull(plan, total),
      integrations: null,
      recordsType: types.map((t) => ({
        name: t.name,
        logo: t.logo,
        count: counts.get(t.id) ?? 0,
        displayValue: inLocale(t.displayValue, locale),
      })),
    };
  }
}
