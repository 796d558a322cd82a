import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DisplayLocale, VaultHomeView } from '@vault/contracts';
import { DataSource } from 'typeorm';
import { RecordsEnv } from '../../config/records.env';
import type { VaultAccess } from '../access/access.service';
import { CatalogueService, inLocale } from '../catalogue/catalogue.service';
import { LicensesService } from '../plans/licenses.service';
import { PlansService } from '../plans/plans.service';
import { countLiveRecordsByType } from '../records/record-counts';
import { inboxAddress } from './vault.view';

/** The vault home: one tile per record type with the vault's record count. */
@Injectable()
export class HomeService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly env: RecordsEnv,
    private readonly catalogue: CatalogueService,
    private readonly licenses: LicensesService,
    private readonly plans: PlansService,
  ) {}

  async home({ vault, vaultRole }: VaultAccess, locale?: DisplayLocale): Promise<VaultHomeView> {
    const plan = await this.licenses.planOf(vault.id);
    const counts = await countLiveRecordsByType(this.ds.manager, vault.id);
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
      maxRecordsReached: total >= this.plans.limit(plan, 'vault.maxVaultRecords'),
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
