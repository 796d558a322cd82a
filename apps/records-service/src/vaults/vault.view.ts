import type { VaultRole, VaultView } from '@vault/contracts';
import type { Plan } from '../plans/plans-file';
import type { VaultEntity } from '../persistence/vault.entity';

/** The inbox address shown as `email`: `<emailUsername>@<inbox domain>`. */
export const inboxAddress = (vault: VaultEntity, domain: string): string | null =>
  vault.emailUsername ? `${vault.emailUsername}@${domain}` : null;

export function toVaultView(
  vault: VaultEntity,
  role: VaultRole | undefined,
  plan: Plan,
  inboxDomain: string,
): VaultView {
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
    userVaultRole: role ? [role] : [],
    subscriptionFeatures: { ...plan.features },
    createdAt: vault.createdAt.toISOString(),
    updatedAt: vault.updatedAt.toISOString(),
  };
}
