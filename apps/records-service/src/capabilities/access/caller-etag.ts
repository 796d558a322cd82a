import { ETagged, versionETag } from '@vault/platform/http';
import type { VaultAccess } from './access.service';

/**
 * The caller's roles as vault and record views show them (`userVaultRole`,
 * `userRecordRole`), as the variant of an ETag: `vault_editor`, `vault_owner+rec_owner`,
 * `rec_viewer`, or `none`.
 */
export function rolesVariant({ vaultRole, recordRole, guestRoles }: Omit<VaultAccess, 'vault' | 'record'>): string {
  const records = [...new Set([...(recordRole ? [recordRole] : []), ...(guestRoles ?? [])])].sort();
  return [...(vaultRole ? [vaultRole] : []), ...records].join('+') || 'none';
}

/** The ETag of a view showing the caller's roles: the stored version and those roles. */
export const callerETag = (id: string, version: number, access: VaultAccess): string =>
  versionETag(id, version, rolesVariant(access));

/**
 * A view showing the caller's roles, with its caller ETag and `Vary: Authorization`:
 * another caller, or the same one after a change of its roles, gets another tag.
 */
export const callerView = <T>(body: T, id: string, version: number, access: VaultAccess): ETagged<T> =>
  new ETagged(body, callerETag(id, version, access), 'Authorization');
