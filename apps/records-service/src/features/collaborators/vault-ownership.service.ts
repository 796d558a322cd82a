import { Injectable } from '@nestjs/common';
import { CollaboratorView, Principal, SUBJECTS } from '@vault/contracts';
import { vaultNotFound } from '../../capabilities/access/access.errors';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { OrphanedVaults } from '../../capabilities/directory/orphaned-vaults';
import { MemberChange } from '../../capabilities/events/event-payload';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { CollaboratorRepository, MemberRow } from '../../persistence/memberships/collaborator.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { CollaboratorChanges, Target, targetOf } from './collaborator-changes';
import { toCollaboratorView } from './collaborator.view';
import { alreadyOwner, onlyEditorsClaim, vaultOwnerActive } from './collaborators.errors';

/**
 * A vault's ownership: its transfer to a collaborator by the owner, and its claim by an
 * editor of a vault whose owner deleted its account. Under the vault row lock, announced
 * as vault.transferred.
 */
@Injectable()
export class VaultOwnershipService {
  constructor(
    private readonly tx: Transactions,
    private readonly vaults: VaultRepository,
    private readonly members: CollaboratorRepository,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly orphans: OrphanedVaults,
    private readonly changes: CollaboratorChanges,
  ) {}

  /**
   * Makes a vault collaborator the owner and the former owner an editor. The new owner
   * must have room for one more owned vault; the vault keeps its licence.
   */
  async transferOwnership(access: VaultAccess, principal: Principal, collaboratorId: string): Promise<CollaboratorView[]> {
    const target = targetOf('vault', access);
    await this.changes.assertInPlan(access.vault.id, 'ownedVaults.transferVaultOwnership');
    await this.tx.run(async (tx) => {
      const vault = await this.changes.lockVault(tx, access.vault.id);
      const heir = await this.changes.member(tx, target, collaboratorId);
      if (heir.role === 'vault_owner') throw alreadyOwner();
      const owner = (await this.members.list('vault', vault.id, tx)).find((m) => m.role === 'vault_owner');
      if (!owner) throw vaultNotFound();
      await this.handOver(tx, vault, principal, target, heir, 'transfer', async () => {
        await this.members.setRole(tx, 'vault', owner.id, 'vault_editor');
      });
    });
    return this.vaultMembers(access);
  }

  /**
   * A vault_editor of a vault whose owner deleted its account takes the ownership, as a
   * transfer to it would (docs/records-api.md, Collaborators): the former owner's
   * membership ends, the caller's becomes `vault_owner`, a scheduled removal is cancelled.
   * Under the vault row lock, so of concurrent claims the first wins and the others find
   * an active owner (409 vault_owner_active).
   */
  async claimOwnership(access: VaultAccess, principal: Principal): Promise<CollaboratorView[]> {
    const target = targetOf('vault', access);
    await this.tx.run(async (tx) => {
      const vault = await this.changes.lockVault(tx, access.vault.id);
      const members = await this.members.list('vault', vault.id, tx);
      const owner = members.find((m) => m.role === 'vault_owner');
      const claimant = members.find((m) => m.openId === principal.openId);
      if (!owner || !claimant) throw vaultNotFound();
      if (!(await this.orphans.ownerDeleted(tx, { tenantId: vault.tenantId, openId: owner.openId }))) {
        throw vaultOwnerActive();
      }
      if (claimant.role !== 'vault_editor') throw onlyEditorsClaim();
      await this.handOver(tx, vault, principal, target, claimant, 'claim', async () => {
        await this.members.remove(tx, 'vault', owner.id);
        await this.vaults.cancelDeletion(tx, vault.id);
      });
    });
    return this.vaultMembers(access);
  }

  /**
   * Makes `heir` the vault's owner once `retireOwner` has dealt with the former one: the
   * heir needs room for one more owned vault under the vault's plan; the vault keeps its
   * licence and stops being anyone's default; announced as vault.transferred (`claimed`
   * when the heir claimed it, so the activity log reads it as a claim).
   */
  private async handOver(
    tx: Tx,
    vault: VaultEntity,
    principal: Principal,
    target: Target,
    heir: MemberRow,
    how: 'transfer' | 'claim',
    retireOwner: () => Promise<void>,
  ): Promise<void> {
    await this.vaults.lockOwner(tx, vault.tenantId, heir.openId);
    await this.quota.assertCanOwnAnotherVault(
      tx,
      { tenantId: vault.tenantId, openId: heir.openId },
      await this.licenses.planOf(vault.id, tx),
    );
    await retireOwner();
    await this.members.setRole(tx, 'vault', heir.id, 'vault_owner');
    if (vault.isDefault) {
      // `default` is the former owner's preference among its own vaults
      vault.isDefault = false;
      await this.vaults.save(tx, vault);
    }
    const change: MemberChange = { previousRole: heir.role, ...(how === 'claim' ? { claimed: true } : {}) };
    await this.changes.announce(tx, SUBJECTS.vaultTransferred, principal, target, { ...heir, role: 'vault_owner' }, change);
  }

  /** The vault's members after the change, as the collaborator list shows them. */
  private async vaultMembers(access: VaultAccess): Promise<CollaboratorView[]> {
    return (await this.members.list('vault', access.vault.id)).map(toCollaboratorView);
  }
}
