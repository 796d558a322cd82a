import { AccessLevel, RecordRole, ROLE_RANK, VaultRole } from '@vault/contracts';

export type AccessDomain = 'vault' | 'record';

/**
 * A level a route rule can name: the four role levels, and on vault routes `guest`, the
 * least of all: the vault is visible to the caller, through a vault role or through a
 * role on one of its live records.
 */
export type RuleLevel = AccessLevel | 'guest';

export interface ParsedRule {
  domain: AccessDomain;
  level: RuleLevel;
}

const LEVELS: readonly AccessLevel[] = ['owner', 'editor', 'viewer', 'info'];

/** `vault:<level>`, `vault:guest` or `record:<level>`; anything else is not a records-module rule. */
export function parseRule(rule: string | undefined): ParsedRule | undefined {
  const [domain, level] = (rule ?? '').split(':');
  if (domain === 'vault' && level === 'guest') return { domain, level };
  if ((domain === 'vault' || domain === 'record') && LEVELS.includes(level as AccessLevel)) {
    return { domain, level: level as AccessLevel };
  }
  return undefined;
}

/** Least vault role granting each level on vault routes. */
const VAULT_LEVEL: Record<AccessLevel, VaultRole> = {
  owner: 'vault_owner',
  editor: 'vault_editor',
  viewer: 'vault_viewer',
  info: 'vault_info',
};

/**
 * On record routes a level is granted by a vault role or by a role on that record.
 * `record:owner` (delete) is granted to vault owners and editors and to the record owner.
 */
const RECORD_LEVEL: Record<AccessLevel, { vault: VaultRole; record: RecordRole }> = {
  owner: { vault: 'vault_editor', record: 'rec_owner' },
  editor: { vault: 'vault_editor', record: 'rec_editor' },
  viewer: { vault: 'vault_viewer', record: 'rec_viewer' },
  info: { vault: 'vault_info', record: 'rec_info' },
};

const atLeast = <R extends VaultRole | RecordRole>(role: R | undefined, least: R) =>
  role !== undefined && ROLE_RANK[role] >= ROLE_RANK[least];

/**
 * Whether the caller's roles grant the rule. On vault routes `recordRole` is the caller's
 * highest role on a live record of the vault: it grants `vault:guest` only.
 */
export function grants(rule: ParsedRule, vaultRole?: VaultRole, recordRole?: RecordRole): boolean {
  if (rule.level === 'guest') return vaultRole !== undefined || recordRole !== undefined;
  if (rule.domain === 'vault') return atLeast(vaultRole, VAULT_LEVEL[rule.level]);
  const need = RECORD_LEVEL[rule.level];
  return atLeast(vaultRole, need.vault) || atLeast(recordRole, need.record);
}
