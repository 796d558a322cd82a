import { Injectable, Logger } from '@nestjs/common';
import { RecordsEnv } from '../../config/records.env';
import { AccountDirectoryRepository } from '../../persistence/account-directory/account-directory.repository';
import type { Tx } from '@vault/platform/persistence';
import { VaultRepository } from '../../persistence/vaults/vault.repository';

const DAY_MS = 86_400_000;

/**
 * Vaults whose owner deleted its account (inactive in the account directory): whether an
 * owner is gone, and the removal of such vaults once nobody else holds a role on them,
 * DELETED_OWNER_VAULT_GRACE_DAYS after the moment that happens (VaultDeletionPurger;
 * docs/user-api.md, Account deletion).
 */
@Injectable()
export class OrphanedVaults {
  private readonly logger = new Logger('OrphanedVaults');

  constructor(
    private readonly vaults: VaultRepository,
    private readonly accounts: AccountDirectoryRepository,
    private readonly env: RecordsEnv,
  ) {}

  /** Whether the account, a vault's owner, is deleted (the directory knows it and it is inactive). */
  ownerDeleted(tx: Tx, owner: { tenantId: string; openId: string }): Promise<boolean> {
    return this.accounts.isInactive(tx, owner.tenantId, owner.openId);
  }

  /**
   * Schedules the removal of those of the vaults whose owner is deleted and that nobody
   * else holds a role on, after the grace period counted from now (the moment the last
   * member left); vaults already scheduled keep their time. The ids scheduled now.
   */
  async scheduleRemoval(tx: Tx, vaultIds: string[]): Promise<string[]> {
    const due = new Date(Date.now() + this.env.DELETED_OWNER_VAULT_GRACE_DAYS * DAY_MS);
    const scheduled = await this.vaults.scheduleDeletionOfOrphaned(tx, vaultIds, due);
    if (scheduled.length > 0)
      this.logger.log(`${scheduled.length} vaults of deleted owners left alone: removed after ${due.toISOString()}`);
    return scheduled;
  }
}
