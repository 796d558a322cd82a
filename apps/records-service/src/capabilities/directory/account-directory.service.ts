import { Injectable, Logger } from '@nestjs/common';
import { SUBJECTS } from '@vault/contracts';
import { collaboratorEvent, eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';
import { AccountDirectoryEntity } from '../../persistence/account-directory/account-directory.entity';
import {
  AccountDirectoryRepository,
  AccountNames,
  DirectoryAccount,
} from '../../persistence/account-directory/account-directory.repository';
import { CollaboratorRepository } from '../../persistence/memberships/collaborator.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { WebhookRepository } from '../../persistence/webhooks/webhook.repository';
import { accountNotFound } from './directory.errors';
import { OrphanedVaults } from './orphaned-vaults';

/** The `disabledReason` of a subscription whose creator's account was deleted (docs/webhooks.md). */
export const CREATOR_DELETED_REASON =
  "the account that created it was deleted; the vault's owner may resume it (taking it over) or delete it";

/**
 * The accounts of each tenant as records-service knows them, kept from user-service's
 * account events: resolves who a vault is shared with without calling user-service,
 * and ends the memberships of an account that is deactivated or deleted.
 */
@Injectable()
export class AccountDirectoryService {
  private readonly logger = new Logger('AccountDirectory');

  constructor(
    private readonly tx: Transactions,
    private readonly accounts: AccountDirectoryRepository,
    private readonly collaborators: CollaboratorRepository,
    private readonly events: EventPublisher,
    private readonly vaults: VaultRepository,
    private readonly orphans: OrphanedVaults,
    private readonly webhooks: WebhookRepository,
  ) {}

  /** The active account of the tenant named by username or openId (404 account_not_found). */
  async resolve(tenantId: string, by: { username?: string; openId?: string }): Promise<AccountDirectoryEntity> {
    const account = await this.accounts.findActive(tenantId, by);
    if (!account) throw accountNotFound();
    return account;
  }

  names(tenantId: string, openIds: string[], tx?: Tx): Promise<Map<string, AccountNames>> {
    return this.accounts.names(tenantId, openIds, tx);
  }

  /**
   * Applies an account's state from an event, in one transaction: a stale or repeated
   * event changes nothing; an inactive account loses every membership but its vault
   * ownerships, each ending announced like a removal; the webhook subscriptions it created,
   * on any vault, are disabled (`creator_account_deleted`: nothing more is sent to the
   * endpoint it chose, not even these endings); the vaults it owned alone, and those
   * of deleted owners it was the last member of, are scheduled for removal after
   * DELETED_OWNER_VAULT_GRACE_DAYS. The vaults it holds a role on are locked first (the lock
   * every membership change takes), so a member leaving one of them at the same moment is
   * seen: of the two, the one that finds the vault left alone schedules it.
   */
  async apply(account: DirectoryAccount): Promise<void> {
    await this.tx.run(async (tx) => {
      if (!(await this.accounts.apply(tx, account)) || account.active) return;
      const vaultIds = await this.vaults.lockWhereMember(tx, account.tenantId, account.openId);
      const ended = await this.collaborators.endAll(tx, account.tenantId, account.openId);
      for (const m of ended) {
        const record = m.recordId && m.recordName !== null ? { id: m.recordId, name: m.recordName } : null;
        const base = eventBase(account, { id: m.vaultId, name: m.vaultName });
        const event = collaboratorEvent(base, { ...m, openId: account.openId, username: account.username }, record);
        await this.events.publish(tx, SUBJECTS.collaboratorDeleted, event);
      }
      if (ended.length > 0) this.logger.log(`account ${account.openId} left: ${ended.length} memberships ended`);
      const hooks = await this.webhooks.disableOfDeletedCreator(tx, account.tenantId, account.openId, CREATOR_DELETED_REASON);
      if (hooks.length > 0)
        this.logger.log(`account ${account.openId} left: ${hooks.length} webhook subscriptions it created disabled`);
      // what it owned alone, and vaults of deleted owners it was the last member of, nobody
      // can reach any more: removed after the grace period (VaultDeletionPurger)
      await this.orphans.scheduleRemoval(tx, vaultIds);
    });
  }
}
