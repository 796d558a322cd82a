import { Injectable } from '@nestjs/common';
import type { Principal, RecordRole, VaultRole } from '@vault/contracts';
import { AccessRepository, ResolvedTarget } from '../../persistence/access/access.repository';
import { RecordEntity } from '../../persistence/records/record.entity';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { recordNotFound, roleTooWeak, vaultNotFound } from './access.errors';
import { grants, ParsedRule } from './roles';

/** What a request may act on, resolved from the path by RoleGuard. */
export interface VaultAccess {
  vault: VaultEntity;
  vaultRole?: VaultRole;
  record?: RecordEntity;
  recordRole?: RecordRole;
  /** On vault routes, for a caller without a vault role: its roles on the vault's live records, highest first. */
  guestRoles?: RecordRole[];
}

/** The record of a record-level route (RoleGuard resolved it with the rule `record:*`). */
export function routeRecordId(access: VaultAccess): string {
  if (!access.record) throw new Error('RoleGuard resolved no record for this route');
  return access.record.id;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** The vault with the caller's vault role or, without one, its guest roles; 404 when it has neither. */
function visibility({ vault, vaultRole, guestRoles }: ResolvedTarget): VaultAccess {
  if (vaultRole) return { vault, vaultRole };
  if (guestRoles?.length) return { vault, guestRoles };
  throw vaultNotFound();
}

/** Roles on vaults and records (docs/records-api.md, roles): who may see and change what. */
@Injectable()
export class AccessService {
  constructor(private readonly targets: AccessRepository) {}

  /**
   * Resolves the vault (and record) of a route for the caller and enforces the rule:
   * nothing visible (other tenant, no role, unknown id) is a 404, a role too weak a 403.
   * A vault is visible with a vault role or with a role on one of its live records (a
   * record guest): such a guest passes `vault:guest` rules and gets 403 from the others.
   */
  async authorize(principal: Principal, rule: ParsedRule, vaultId: unknown, recordId: unknown): Promise<VaultAccess> {
    if (!isUuid(vaultId)) throw vaultNotFound();
    const wantsRecord = rule.domain === 'record' && isUuid(recordId);
    const found = await this.targets.resolve(principal.tenantId, principal.openId, vaultId, wantsRecord ? recordId : undefined);
    if (!found) throw vaultNotFound();
    const { vault, vaultRole, record, recordRole } = found;
    if (rule.domain === 'vault') {
      const seen = visibility(found);
      if (!grants(rule, seen.vaultRole, seen.guestRoles?.[0])) throw roleTooWeak();
      return seen;
    }
    if (!record || (!vaultRole && !recordRole)) throw recordNotFound();
    if (!grants(rule, vaultRole, recordRole)) throw roleTooWeak();
    return { vault, vaultRole, record, recordRole };
  }

  /**
   * The vault of the caller's tenant with the caller's role on it, visible as on vault
   * routes (a vault role or a role on one of its live records); 404 otherwise.
   */
  async visibleVault(principal: Principal, vaultId: unknown): Promise<VaultAccess> {
    if (!isUuid(vaultId)) throw vaultNotFound();
    const found = await this.targets.resolve(principal.tenantId, principal.openId, vaultId);
    if (!found) throw vaultNotFound();
    return visibility(found);
  }
}
