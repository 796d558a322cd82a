import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  CHECK_EMAIL_ANSWERS,
  CreateVaultDto,
  DEFAULT_VAULT_TYPE,
  IdResponse,
  LicenseView,
  Principal,
  RECORDS_ERROR_CODES,
  SUBJECTS,
  UpdateVaultDto,
  VaultChangedEvent,
  VaultView,
} from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { DataSource, EntityManager, In, Not } from 'typeorm';
import { RecordsEnv } from '../../config/records.env';
import { AccessService, VaultAccess, vaultNotFound } from '../access/access.service';
import { VaultMembershipEntity } from '../access/membership.entity';
import { BrandingService } from '../branding/branding.service';
import { eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';
import { LicensesService } from '../plans/licenses.service';
import { PlansService } from '../plans/plans.service';
import { emailUsernameTaken, mapEmailRace } from './unique-violation';
import { VaultEntity } from './vault.entity';
import { toVaultView } from './vault.view';

/** Fields of the update body copied as they are when present. */
const PLAIN_FIELDS = ['name', 'profilePhoto', 'firstName', 'lastName', 'editable', 'brandCode'] as const;

const DEFAULT_VAULT_NAME = 'My vault';

@Injectable()
export class VaultsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly env: RecordsEnv,
    private readonly access: AccessService,
    private readonly licenses: LicensesService,
    private readonly plans: PlansService,
    private readonly branding: BrandingService,
    private readonly events: EventPublisher,
  ) {}

  async create(principal: Principal, dto: CreateVaultDto): Promise<IdResponse> {
    const choice = this.licenses.choose(dto.licenseKey);
    this.branding.assertKnown(principal.tenantId, dto.brandCode ?? undefined);
    const emailUsername = dto.emailUsername?.toLowerCase() ?? null;
    return this.ds
      .transaction(async (m) => {
        // One vault creation at a time per caller, so the owned-vaults quota holds under races.
        await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `vault-owner:${principal.tenantId}:${principal.openId}`,
        ]);
        const owned = await this.access.ownedVaultIds(m, principal);
        // one query at a time: the transaction has a single connection
        const plans = [choice.plan];
        for (const id of owned) plans.push(await this.licenses.planOf(id, m));
        const max = Math.max(...plans.map((p) => this.plans.limit(p, 'account.maxOwnedVaults')));
        if (owned.length >= max) {
          throw ProblemException.conflict(
            RECORDS_ERROR_CODES.maxOwnedVaultsReached,
            `The account already owns the ${max} vaults its plan allows.`,
          );
        }
        if (emailUsername) await this.assertEmailFree(m, emailUsername);
        const isDefault = dto.default ?? owned.length === 0;
        if (isDefault) await this.clearDefault(m, owned);
        const vault = await m.save(
          m.create(VaultEntity, {
            tenantId: principal.tenantId,
            name: dto.name ?? ([dto.firstName, dto.lastName].filter(Boolean).join(' ') || DEFAULT_VAULT_NAME),
            emailUsername,
            profilePhoto: dto.profilePhoto ?? null,
            firstName: dto.firstName ?? null,
            lastName: dto.lastName ?? null,
            type: dto.type ?? DEFAULT_VAULT_TYPE,
            isDefault,
            editable: dto.editable ?? true,
            brandCode: dto.brandCode ?? null,
            createdBy: principal.openId,
          }),
        );
        await this.access.grantVaultRole(m, vault, principal.openId, 'vault_owner');
        const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: [] };
        await this.events.publish(m, SUBJECTS.vaultCreated, event);
        await this.licenses.grant(m, principal, vault, choice);
        return { id: vault.id };
      })
      .catch(mapEmailRace);
  }

  async get({ vault, vaultRole }: VaultAccess): Promise<VaultView> {
    return toVaultView(vault, vaultRole, await this.licenses.planOf(vault.id), this.env.VAULT_INBOX_DOMAIN);
  }

  async update(access: VaultAccess, principal: Principal, dto: UpdateVaultDto): Promise<VaultView> {
    const choice = dto.licenseKey !== undefined ? this.licenses.choose(dto.licenseKey) : undefined;
    this.branding.assertKnown(principal.tenantId, dto.brandCode ?? undefined);
    return this.ds
      .transaction(async (m) => {
        const vault = await m.findOne(VaultEntity, {
          where: { id: access.vault.id },
          lock: { mode: 'pessimistic_write' },
        });
        if (!vault) throw vaultNotFound();
        const changed: string[] = [];
        for (const field of PLAIN_FIELDS) {
          const value = dto[field];
          if (value !== undefined && value !== vault[field]) {
            Object.assign(vault, { [field]: value });
            changed.push(field);
          }
        }
        const emailUsername = dto.emailUsername === null ? null : dto.emailUsername?.toLowerCase();
        if (emailUsername !== undefined && emailUsername !== vault.emailUsername) {
          if (emailUsername !== null) await this.assertEmailFree(m, emailUsername, vault.id);
          vault.emailUsername = emailUsername;
          changed.push('emailUsername');
        }
        if (dto.default !== undefined && dto.default !== vault.isDefault) {
          // `default` is the owner's preference among the owner's vaults: an editor has no role
          // on those other vaults, so only an owner changes it (an unchanged echo is fine).
          if (access.vaultRole !== 'vault_owner') {
            throw ProblemException.forbidden('Only the vault owner can change whether it is the default vault.');
          }
          if (dto.default) await this.clearDefault(m, await this.ownersOtherVaults(m, vault));
          vault.isDefault = dto.default;
          changed.push('default');
        }
        if (choice && (await this.licenses.current(vault.id, m))?.licenseKey !== choice.key) {
          // The licence is the owner's subscription: an editor may echo the current key, not change it.
          if (access.vaultRole !== 'vault_owner') {
            throw ProblemException.forbidden('Only the vault owner can change its licence.');
          }
          await this.licenses.grant(m, principal, vault, choice);
          changed.push('licenseKey');
        }
        if (changed.length > 0) {
          await m.save(vault);
          const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: changed };
          await this.events.publish(m, SUBJECTS.vaultUpdated, event);
        }
        const plan = await this.licenses.planOf(vault.id, m);
        return toVaultView(vault, access.vaultRole, plan, this.env.VAULT_INBOX_DOMAIN);
      })
      .catch(mapEmailRace);
  }

  /** Removes the vault with its records, memberships and licences (hard delete). */
  async remove(access: VaultAccess, principal: Principal): Promise<void> {
    await this.ds.transaction(async (m) => {
      const vault = await m.findOne(VaultEntity, {
        where: { id: access.vault.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!vault) throw vaultNotFound();
      const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: [] };
      await this.events.publish(m, SUBJECTS.vaultDeleted, event);
      await m.delete(VaultEntity, { id: vault.id });
    });
  }

  licensesOf(access: VaultAccess): Promise<LicenseView[]> {
    return this.licenses.list(access.vault.id);
  }

  /** Whether any vault (of any tenant: inbox names are global) uses the name. */
  async checkEmail(emailUsername: string): Promise<string> {
    const taken = await this.ds
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('lower(v.email_username) = lower(:name)', { name: emailUsername })
      .getExists();
    return taken ? CHECK_EMAIL_ANSWERS.taken : CHECK_EMAIL_ANSWERS.available;
  }

  private async assertEmailFree(m: EntityManager, emailUsername: string, exceptVaultId?: string) {
    const qb = m
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('lower(v.email_username) = lower(:name)', { name: emailUsername });
    if (exceptVaultId) qb.andWhere('v.id <> :id', { id: exceptVaultId });
    if (await qb.getExists()) throw emailUsernameTaken();
  }

  private async clearDefault(m: EntityManager, vaultIds: string[]) {
    if (vaultIds.length > 0) await m.update(VaultEntity, { id: In(vaultIds) }, { isDefault: false });
  }

  /** Other vaults owned by this vault's owners: only one of an account's vaults is its default. */
  private async ownersOtherVaults(m: EntityManager, vault: VaultEntity): Promise<string[]> {
    const owners = await m.find(VaultMembershipEntity, { where: { vaultId: vault.id, role: 'vault_owner' } });
    if (owners.length === 0) return [];
    const rows = await m.find(VaultMembershipEntity, {
      where: {
        tenantId: vault.tenantId,
        openId: In(owners.map((o) => o.openId)),
        role: 'vault_owner',
        vaultId: Not(vault.id),
      },
    });
    return rows.map((r) => r.vaultId);
  }
}
