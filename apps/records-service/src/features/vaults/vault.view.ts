import type { RecordRole, VaultRole, VaultView } from '@vault/contracts';
import type { Plan } from '../../capabilities/plans/plans-file';
import type { VaultEntity } from '../../persistence/vaults/vault.entity';

/** The inbox address shown as `email`: `<emailUsername>@<inbox domain>`. */
export const inboxAddress = (vault: VaultEntity, domain: string): string | null =>
  vault.emailUsername ? `${vault.emailUsername}@${domain}` : null;

/** The caller's roles as vault views show them: its vault role, else its roles on the vault's records. */
export interface CallerRoles {
  vaultRole?: VaultRole;
  guestRoles?: RecordRole[];
}

export const userRoles = ({ vaultRole, guestRoles }: CallerRoles) => ({
  userVaultRole: vaultRole ? [vaultRole] : [],
  userRecordRole: vaultRole ? [] : [...(guestRoles ?? [])],
});

export function toVaultView(vault: VaultEntity, roles: CallerRoles, plan: Plan, inboxDomain: string): VaultView {
  return {
    id: vault.id,
    name: vault.name,
    email: inboxAddress(vault, inboxDomain),
    profilePhoto: vault.profilePhoto,
    firstName: vault.firstName,
    lastName: vault.lastName,
    type: vault.type,
    default: vault.isDefault,
    editable: vault.editable,
    brandCode: vault.brandCode,
    active: vault.active,
    status: vault.status,
    ...userRoles(roles),
    subscriptionFeatures: { ...plan.features },
    createdAt: vault.createdAt.toISOString(),
    updatedAt: vault.updatedAt.toISOString(),
  };
}
