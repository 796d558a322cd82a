import { Injectable } from '@nestjs/common';
import { CollaboratorView, Principal, SUBJECTS, SubscriptionFeatureKey } from '@vault/contracts';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { AccountDirectoryService } from '../../capabilities/directory/account-directory.service';
import { OrphanedVaults } from '../../capabilities/directory/orphaned-vaults';
import { CollaboratorRepository, MemberRow, MembershipScope } from '../../persistence/memberships/collaborator.repository';
import { Transactions } from '@vault/platform/persistence';
import { CollaboratorChanges, GuestRole, OWNER_ROLES, targetOf } from './collaborator-changes';
import { toCollaboratorView } from './collaborator.view';
import { alreadyCollaborator, mapMemberRace, ownerCannotBeRemoved } from './collaborators.errors';

const INVITE_FLAGS: Record<MembershipScope, SubscriptionFeatureKey> = {
  vault: 'ownedVaults.featureInviteVaultCollaborator',
  record: 'ownedVaults.featureInviteRecordCollaborator',
};

/**
 * Sharing vaults and records: who may add, change and remove members, within which plan
 * flags (the ownership: VaultOwnershipService). Every change runs under the vault row lock
 * and announces itself (activity log entity Network).
 */
@Injectable()
export class CollaboratorsService {
  constructor(
    private readonly tx: Transactions,
    private readonly members: CollaboratorRepository,
    private readonly directory: AccountDirectoryService,
    private readonly orphans: OrphanedVaults,
    private readonly changes: CollaboratorChanges,
  ) {}

  async list(scope: MembershipScope, access: VaultAccess): Promise<CollaboratorView[]> {
    return (await this.members.list(scope, targetOf(scope, access).id)).map(toCollaboratorView);
  }

  async add(
    scope: MembershipScope,
    access: VaultAccess,
    principal: Principal,
    dto: { username?: string; openId?: string; role: GuestRole },
  ): Promise<CollaboratorView> {
    const target = targetOf(scope, access);
    this.changes.assertManager(target);
    await this.changes.assertInPlan(access.vault.id, INVITE_FLAGS[scope], dto.role);
    const account = await this.directory.resolve(principal.tenantId, {
      username: dto.username,
      openId: dto.openId,
    });
    return this.tx
      .run(async (tx) => {
        await this.changes.lockVault(tx, access.vault.id);
        if (await this.members.isMember(tx, scope, target.id, account.openId)) throw alreadyCollaborator();
        const added = await this.members.add(
          tx,
          scope,
          { id: target.id, tenantId: access.vault.tenantId },
          account.openId,
          dto.role,
        );
        const member: MemberRow = {
          ...added,
          openId: account.openId,
          role: dto.role,
          username: account.username,
          firstName: account.firstName,
          lastName: account.lastName,
        };
        await this.changes.announce(tx, SUBJECTS.collaboratorCreated, principal, target, member);
        return toCollaboratorView(member);
      })
      .catch(mapMemberRace);
  }

  async changeRole(
    scope: MembershipScope,
    access: VaultAccess,
    principal: Principal,
    id: string,
    role: GuestRole,
  ): Promise<CollaboratorView> {
    const target = targetOf(scope, access);
    this.changes.assertManager(target);
    await this.changes.assertInPlan(access.vault.id, undefined, role);
    return this.tx.run(async (tx) => {
      await this.changes.lockVault(tx, access.vault.id);
      const member = await this.changes.member(tx, target, id);
      if (OWNER_ROLES.includes(member.role)) throw ownerCannotBeRemoved();
      if (member.role !== role) {
        await this.members.setRole(tx, scope, member.id, role);
        await this.changes.announce(
          tx,
          SUBJECTS.collaboratorUpdated,
          principal,
          target,
          { ...member, role },
          { previousRole: member.role },
        );
      }
      return toCollaboratorView({ ...member, role });
    });
  }

  /**
   * The owner removes anyone but itself; any other member may remove itself (leave).
   * Leaving a vault ends the member's roles on its records too (those of the records
   * it created included): nothing of the vault stays visible to it. When the vault's owner
   * is deleted and the last member leaves, the vault is scheduled for removal.
   */
  async remove(scope: MembershipScope, access: VaultAccess, principal: Principal, id: string): Promise<void> {
    const target = targetOf(scope, access);
    await this.tx.run(async (tx) => {
      await this.changes.lockVault(tx, access.vault.id);
      const member = await this.changes.member(tx, target, id);
      if (member.openId !== principal.openId) this.changes.assertManager(target);
      if (OWNER_ROLES.includes(member.role)) throw ownerCannotBeRemoved();
      await this.members.remove(tx, scope, member.id);
      await this.changes.announce(tx, SUBJECTS.collaboratorDeleted, principal, target, member);
      if (scope === 'vault') {
        for (const ended of await this.members.removeRecordRoles(tx, access.vault.id, member.openId)) {
          const record = { id: ended.recordId, name: ended.recordName };
          const ending = { ...ended, username: member.username };
          await this.changes.announce(tx, SUBJECTS.collaboratorDeleted, principal, target, ending, undefined, record);
        }
      }
      await this.orphans.scheduleRemoval(tx, [access.vault.id]);
    });
  }
}
