import { Injectable } from '@nestjs/common';
import {
  Principal,
  RecordGuestRole,
  RecordRole,
  Subject,
  SubscriptionFeatureKey,
  VaultGuestRole,
  VaultRole,
} from '@vault/contracts';
import { vaultNotFound } from '../../capabilities/access/access.errors';
import { isUuid, type VaultAccess } from '../../capabilities/access/access.service';
import { collaboratorEvent, eventBase, MemberChange } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { CollaboratorRepository, MemberRow, MembershipScope } from '../../persistence/memberships/collaborator.repository';
import { Tx } from '@vault/platform/persistence';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { collaboratorNotFound, featureNotInPlan, onlyOwnersManage } from './collaborators.errors';

export type GuestRole = VaultGuestRole | RecordGuestRole;

/** Plan flag that must be "1" for a role to be granted (docs/records-api.md, Collaborators). */
const ROLE_FLAGS: Record<GuestRole, SubscriptionFeatureKey> = {
  vault_editor: 'guestVaults.vaultEditorAbility',
  vault_viewer: 'guestVaults.vaultViewerAbility',
  vault_info: 'guestVaults.vaultInfoAbility',
  rec_editor: 'guestVaults.recordEditorAbility',
  rec_viewer: 'guestVaults.recordViewerAbility',
  rec_info: 'guestVaults.recordInfoAbility',
};

export const OWNER_ROLES: readonly (VaultRole | RecordRole)[] = ['vault_owner', 'rec_owner'];

/** The vault or record whose members a request changes, with the caller's rights on it. */
export interface Target {
  scope: MembershipScope;
  id: string;
  access: VaultAccess;
}

export const targetOf = (scope: MembershipScope, access: VaultAccess): Target => ({
  scope,
  access,
  id: scope === 'vault' ? access.vault.id : (access.record?.id ?? ''),
});

/**
 * The steps every change of members shares (CollaboratorsService, VaultOwnershipService):
 * the manager and plan checks, the vault row lock, finding the member, and the event that
 * announces the change in the same transaction.
 */
@Injectable()
export class CollaboratorChanges {
  constructor(
    private readonly vaults: VaultRepository,
    private readonly members: CollaboratorRepository,
    private readonly licenses: LicensesService,
    private readonly events: EventPublisher,
  ) {}

  /** Adding, changing and removing others needs the vault owner (or, on a record, its rec_owner). */
  assertManager(target: Target): void {
    const { vaultRole, recordRole } = target.access;
    const manages = vaultRole === 'vault_owner' || (target.scope === 'record' && recordRole === 'rec_owner');
    if (!manages) throw onlyOwnersManage();
  }

  async assertInPlan(vaultId: string, feature?: SubscriptionFeatureKey, role?: GuestRole): Promise<void> {
    const plan = await this.licenses.planOf(vaultId);
    for (const key of [feature, role && ROLE_FLAGS[role]]) {
      if (key && plan.features[key] !== '1') throw featureNotInPlan(key);
    }
  }

  async lockVault(tx: Tx, vaultId: string): Promise<VaultEntity> {
    const [vault] = await this.vaults.lock(tx, [vaultId]);
    if (!vault) throw vaultNotFound();
    return vault;
  }

  async member(tx: Tx, target: Target, id: string): Promise<MemberRow> {
    const member = isUuid(id) ? await this.members.byId(tx, target.scope, target.id, id) : null;
    if (!member) throw collaboratorNotFound();
    return member;
  }

  async announce(
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
