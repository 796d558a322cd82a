import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Principal, RecordRole, VaultRole } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { EntityManager, Not, Repository } from 'typeorm';
import { RecordEntity } from '../records/record.entity';
import { VaultEntity } from '../vaults/vault.entity';
import { RecordMembershipEntity, VaultMembershipEntity } from './membership.entity';
import { grants, ParsedRule } from './roles';

/** What a request may act on, resolved from the path by RoleGuard. */
export interface VaultAccess {
  vault: VaultEntity;
  vaultRole?: VaultRole;
  record?: RecordEntity;
  recordRole?: RecordRole;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

export const vaultNotFound = () => ProblemException.notFound('The vault does not exist.');
export const recordNotFound = () => ProblemException.notFound('The record does not exist.');

/** Roles on vaults and records (DESIGN §4): who may see and change what. */
@Injectable()
export class AccessService {
  constructor(
    @InjectRepository(VaultEntity) private readonly vaults: Repository<VaultEntity>,
    @InjectRepository(RecordEntity) private readonly records: Repository<RecordEntity>,
    @InjectRepository(VaultMembershipEntity) private readonly vaultMembers: Repository<VaultMembershipEntity>,
    @InjectRepository(RecordMembershipEntity) private readonly recordMembers: Repository<RecordMembershipEntity>,
  ) {}

  /**
   * Resolves the vault (and record) of a route for the caller and enforces the rule:
   * nothing visible (other tenant, no role, unknown id) is a 404, a role too weak a 403.
   */
  async authorize(
    principal: Principal,
    rule: ParsedRule,
    vaultId: unknown,
    recordId: unknown,
  ): Promise<VaultAccess> {
    const { vault, vaultRole } = await this.visibleVault(principal, vaultId);
    if (rule.domain === 'vault') {
      if (!vaultRole) throw vaultNotFound();
      if (!grants(rule, vaultRole)) throw ProblemException.forbidden();
      return { vault, vaultRole };
    }
    if (!isUuid(recordId)) throw recordNotFound();
    const record = await this.records.findOne({
      where: { id: recordId, vaultId: vault.id, tenantId: principal.tenantId, status: Not('DELETED') },
    });
    const recordRole = record ? await this.recordRole(record.id, principal.openId) : undefined;
    if (!record || (!vaultRole && !recordRole)) throw recordNotFound();
    if (!grants(rule, vaultRole, recordRole)) throw ProblemException.forbidden();
    return { vault, vaultRole, record, recordRole };
  }

  /** The vault of the caller's tenant with the caller's role on it (404 for unknown ids). */
  async visibleVault(
    principal: Principal,
    vaultId: unknown,
  ): Promise<{ vault: VaultEntity; vaultRole?: VaultRole }> {
    if (!isUuid(vaultId)) throw vaultNotFound();
    const vault = await this.vaults.findOne({ where: { id: vaultId, tenantId: principal.tenantId } });
    if (!vault) throw vaultNotFound();
    return { vault, vaultRole: await this.vaultRole(vault.id, principal.openId) };
  }

  async vaultRole(vaultId: string, openId: string): Promise<VaultRole | undefined> {
    const m = await this.vaultMembers.findOne({ where: { vaultId, openId } });
    return m?.role;
  }

  async recordRole(recordId: string, openId: string): Promise<RecordRole | undefined> {
    const m = await this.recordMembers.findOne({ where: { recordId, openId } });
    return m?.role;
  }

  /** openIds holding a role on each record. */
  async contributors(recordIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (recordIds.length === 0) return out;
    const rows = await this.recordMembers
      .createQueryBuilder('m')
      .where('m.record_id IN (:...ids)', { ids: recordIds })
      .orderBy('m.created_at', 'ASC')
      .getMany();
    for (const r of rows) out.set(r.recordId, [...(out.get(r.recordId) ?? []), r.openId]);
    return out;
  }

  /** Ids of the vaults the caller owns in its tenant. */
  async ownedVaultIds(manager: EntityManager, principal: Principal): Promise<string[]> {
    const rows = await manager.find(VaultMembershipEntity, {
      where: { tenantId: principal.tenantId, openId: principal.openId, role: 'vault_owner' },
    });
    return rows.map((r) => r.vaultId);
  }

  async grantVaultRole(manager: EntityManager, vault: VaultEntity, openId: string, role: VaultRole) {
    await manager.insert(VaultMembershipEntity, { vaultId: vault.id, tenantId: vault.tenantId, openId, role });
  }

  async grantRecordRole(manager: EntityManager, record: RecordEntity, openId: string, role: RecordRole) {
    await manager.insert(RecordMembershipEntity, { recordId: record.id, tenantId: record.tenantId, openId, role });
  }
}
