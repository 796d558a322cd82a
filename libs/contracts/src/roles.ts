/** Vault and record roles (docs/records-api.md, Roles). Higher rank outranks lower; any vault role outranks any record role. */
export const VAULT_ROLES = ['vault_owner', 'vault_editor', 'vault_viewer', 'vault_info'] as const;
export type VaultRole = (typeof VAULT_ROLES)[number];

export const RECORD_ROLES = ['rec_owner', 'rec_editor', 'rec_viewer', 'rec_info'] as const;
export type RecordRole = (typeof RECORD_ROLES)[number];

export type AnyRole = VaultRole | RecordRole;

/**
 * Tenant roles of an organisation user, set in the bootstrap file and carried in the token's
 * `roles` claim: `compliance` marks a compliance officer, who manages legal holds.
 */
export const TENANT_ROLES = ['compliance'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];

/** Rank of each role: a larger number grants more. */
export const ROLE_RANK: Record<AnyRole, number> = {
  vault_owner: 8,
  vault_editor: 7,
  vault_viewer: 6,
  vault_info: 5,
  rec_owner: 4,
  rec_editor: 3,
  rec_viewer: 2,
  rec_info: 1,
};

/** The access levels a route can require, mapped to the least role that grants each. */
export type AccessLevel = 'owner' | 'editor' | 'viewer' | 'info';
