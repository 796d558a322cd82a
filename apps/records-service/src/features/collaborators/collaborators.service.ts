import { Injectable } from '@nestjs/common';
import {
  CollaboratorView,
  Principal,
  RecordGuestRole,
  RecordRole,
  Subject,
  SUBJECTS,
  SubscriptionFeatureKey,
  VaultGuestRole,
  VaultRole,
} from '@vault/contracts';
import { vaultNotFound } from '../../capabilities/access/access.errors';
import { isUuid, type VaultAccess } from '../../capabilities/access/access.service';
import { AccountDirectoryService } from '../../capabilities/directory/account-directory.service';
import { OrphanedVaults } from '../../capabilities/directory/orphaned-vaults';
import { collaboratorEvent, eventBase, MemberChange } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { CollaboratorRepository, MemberRow, MembershipScope } from '../../persistence/memberships/collaborator.repository';
import { Transactions, Tx } from '../../persistence/transactions';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { toCollaboratorView } from './collaborator.view';
import {
  alreadyCollaborator,
  alreadyOwner,
  collaboratorNotFound,
  featureNotInPlan,
  mapMemberRace,
  onlyOwnersManage,
  onlyEditorsClaim,
  ownerCannotBeRemoved,
  vaultOwnerActive,
} from './collaborators.errors';

type GuestRole = VaultGuestRole | RecordGuestRole;

/** Plan flag that must be "1" for a role to be granted (docs/records-api.md, Collaborators). */
const ROLE_FLAGS: Record<GuestRole, SubscriptionFeatureKey> = {
  vault_editor: 'guestVaults.vaultEditorAbility',
  vault_viewer: 'guestVaults.vaultViewerAbility',
  vault_info: 'guestVaults.vaultInfoAbility',
  rec_editor: 'guestVaults.recordEditorAbility',
  rec_viewer: 'guestVaults.recordViewerAbility',
  rec_info: 'guestVaults.recordInfoAbility',
};

const INVITE_FLAGS: Record<MembershipScope, SubscriptionFeatureKey> = {
  vault: 'ownedVaults.featureInviteVaultCollaborator',
  record: 'ownedVaults.featureInviteRecordCollaborator',
};

const OWNER_ROLES: readonly (VaultRole | RecordRole)[] = ['vault_owner', 'rec_owner'];

/** The vault or record whose members a request changes, with the caller's rights on it. */
interface Target {
  scope: MembershipScope;
  id: string;
  access: VaultAccess;
}

const targetOf = (scope: MembershipScope, access: VaultAccess): Target => ({
  scope,
  access,
  id: scope === 'vault' ? access.vault.id : (access.record?.id ?? ''),
});

/**
 * Sharing vaults and records: who may add, change and remove members, within which
 * plan flags, the ownership transfer and its claim by an editor of a deleted owner's
 * vault. Every change runs under the vault row lock and announces itself (activity log
 * entity Network).
 */
@Injectable()
export class CollaboratorsService {
  constructor(
    private readonly tx: Transactions,
    private readonly vaults: VaultRepository,
    private readonly members: CollaboratorRepository,
    private readonly directory: AccountDirectoryService,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly events: EventPublisher,
    private readonly orphans: OrphanedVaults,
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
    this.assertManager(target);
    await this.assertInPlan(access.vault.id, INVITE_FLAGS[scope], dto.role);
    const account = await this.directory.resolve(principal.tenantId, {
      username: dto.username,
      openId: dto.openId,
    });
    return this.tx
      .run(async (tx) => {
        await this.lockVault(tx, access.vault.id);
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
        await this.announce(tx, SUBJECTS.collaboratorCreated, principal, target, member);
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
    this.assertManager(target);
    await this.assertInPlan(access.vault.id, undefined, role);
    return this.tx.run(async (tx) => {
      await this.lockVault(tx, access.vault.id);
      const member = await this.member(tx, target, id);
      if (OWNER_ROLES.includes(member.role)) throw ownerCannotBeRemoved();
      if (member.role !== role) {
        await this.members.setRole(tx, scope, member.id, role);
        await this.announce(tx, SUBJECTS.collaboratorUpdated, principal, target, { ...member, role }, { previousRole: member.role });
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
      await this.lockVault(tx, access.vault.id);
      const member = await this.member(tx, target, id);
      if (member.openId !== principal.openId) this.assertManager(target);
      if (OWNER_ROLES.includes(member.role)) throw ownerCannotBeRemoved();
      await this.members.remove(tx, scope, member.id);
      await this.announce(tx, SUBJECTS.collaboratorDeleted, principal, target, member);
      if (scope === 'vault') {
        for (const ended of await this.members.removeRecordRoles(tx, access.vault.id, member.openId)) {
          const record = { id: ended.recordId, name: ended.recordName };
          const ending = { ...ended, username: member.username };
          await this.announce(tx, SUBJECTS.collaboratorDeleted, principal, target, ending, undefined, record);
        }
      }
      await this.orphans.scheduleRemoval(tx, [access.vault.id]);
    });
  }

  /**
   * Makes a vault collaborator the owner and the former owner an editor. The new owner
   * must have room for one more owned vault; the vault keeps its licence.
   */
  async transferOwnership(
    access: VaultAccess,
    principal: Principal,
    collaboratorId: string,
  ): Promise<CollaboratorView[]> {
    const target = targetOf('vault', access);
    await this.assertInPlan(access.vault.id, 'ownedVaults.transferVaultOwnership');
    await this.tx.run(async (tx) => {
      const vault = await this.lockVault(tx, access.vault.id);
      const heir = await this.member(tx, target, collaboratorId);
      if (heir.role === 'vault_owner') throw alreadyOwner();
      const owner = (await this.members.list('vault', vault.id, tx)).find((m) => m.role === 'vault_owner');
      if (!owner) throw vaultNotFound();
      await this.handOver(tx, vault, principal, target, heir, 'transfer', async () => {
        await this.members.setRole(tx, 'vault', owner.id, 'vault_editor');
      });
    });
    return this.list('vault', access);
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
      const vault = await this.lockVault(tx, access.vault.id);
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
    return this.list('vault', access);
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
    await this.announce(tx, SUBJECTS.vaultTransferred, principal, target, { ...heir, role: 'vault_owner' }, change);
  }

  /** Adding, changing and removing others needs the vault owner (or, on a record, its rec_owner). */
  private assertManager(target: Target): void {
    const { vaultRole, recordRole } = target.access;
    const manages = vaultRole === 'vault_owner' || (target.scope === 'record' && recordRole === 'rec_owner');
    if (!manages) throw onlyOwnersManage();
  }

  private async assertInPlan(vaultId: string, feature?: SubscriptionFeatureKey, role?: GuestRole): Promise<void> {
    const plan = await this.licenses.planOf(vaultId);
    for (const key of [feature, role && ROLE_FLAGS[role]]) {
      if (key && plan.features[key] !== '1') throw featureNotInPlan(key);
    }
  }

  private async lockVault(tx: Tx, vaultId: string) {
    const [vault] = await this.vaults.lock(tx, [vaultId]);
    if (!vault) throw vaultNotFound();
    return vault;
  }

  private async member(tx: Tx, target: Target, id: string): Promise<MemberRow> {
    const member = isUuid(id) ? await this.members.byId(tx, target.scope, target.id, id) : null;
    if (!member) throw collaboratorNotFound();
    return member;
  }

  private async announce(
    tx: Tx,
    subject: Subject,
    principal: Principal,
    target: Target,
    member: MemberRow,
    change?: MemberChange,
    record: { id: string; name: string } | undefined = target.scope === 'record' ? target.access.record : undefined,
  ): Promise<void> {
    const event = collaboratorEvent(eventBase(principal, target.access.vault), member, record, change);
    await this.events.publish(tx, subject, event);
  }

}
