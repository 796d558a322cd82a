import { Injectable } from '@nestjs/common';
import {
  CHECK_EMAIL_ANSWERS,
  CreateVaultDto,
  DEFAULT_PAGE_SIZE,
  DEFAULT_VAULT_TYPE,
  IdResponse,
  LicenseView,
  Principal,
  SUBJECTS,
  UpdateVaultDto,
  VaultChangedEvent,
  VaultListPage,
  VaultListQueryDto,
  VaultView,
} from '@vault/contracts';
import { ETagged, IfMatchCondition, offsetPage, offsetPageAnswer } from '@vault/platform/http';
import { vaultNotFound } from '../../capabilities/access/access.errors';
import { callerETag, callerView } from '../../capabilities/access/caller-etag';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { BrandingService } from '../../capabilities/branding/branding.service';
import { RecordsEnv } from '../../config/records.env';
import { eventBase } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { MembershipRepository } from '../../persistence/memberships/membership.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { Ownership, VaultRepository } from '../../persistence/vaults/vault.repository';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { Trasher } from '../../capabilities/retention/trasher';
import { toVaultView } from './vault.view';
import { emailUsernameTaken, mapEmailRace, onlyOwnerChangesDefault, onlyOwnerChangesLicence } from './vaults.errors';

/** Fields of the update body copied as they are when present. */
const PLAIN_FIELDS = ['name', 'profilePhoto', 'firstName', 'lastName', 'editable', 'brandCode'] as const;

const DEFAULT_VAULT_NAME = 'My vault';

/** The ETag of a vault's stored version as the caller sees it (its roles are in the view). */
const vaultETag = (vault: VaultEntity, access: VaultAccess): string => callerETag(vault.id, vault.version, access);

/** Vaults: create within the owned-vaults quota, read, change, delete, inbox names. */
@Injectable()
export class VaultsService {
  constructor(
    private readonly env: RecordsEnv,
    private readonly tx: Transactions,
    private readonly vaults: VaultRepository,
    private readonly memberships: MembershipRepository,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly branding: BrandingService,
    private readonly events: EventPublisher,
    private readonly trasher: Trasher,
  ) {}

  async create(principal: Principal, dto: CreateVaultDto): Promise<IdResponse> {
    const choice = this.licenses.choose(dto.licenseKey);
    this.branding.assertKnown(principal.tenantId, dto.brandCode ?? undefined);
    const emailUsername = dto.emailUsername?.toLowerCase() ?? null;
    return this.tx
      .run(async (tx) => {
        await this.vaults.lockOwner(tx, principal.tenantId, principal.openId);
        const owned = await this.quota.assertCanOwnAnotherVault(tx, principal, choice.plan);
        if (emailUsername) await this.assertEmailFree(tx, emailUsername);
        const isDefault = dto.default ?? owned.length === 0;
        if (isDefault) await this.vaults.clearDefault(tx, owned);
        const vault = await this.vaults.insert(tx, {
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
        });
        await this.memberships.grantVaultRole(tx, vault, principal.openId, 'vault_owner');
        const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: [] };
        await this.events.publish(tx, SUBJECTS.vaultCreated, event);
        await this.licenses.grant(tx, principal, vault, choice);
        return { id: vault.id };
      })
      .catch(mapEmailRace);
  }

  async get(access: VaultAccess): Promise<ETagged<VaultView>> {
    const { vault } = access;
    const view = toVaultView(vault, access, await this.licenses.planOf(vault.id), this.env.VAULT_INBOX_DOMAIN);
    return callerView(view, vault.id, vault.version, access);
  }

  /**
   * The vaults the caller sees (owned, shared through a vault role, or holding records
   * shared with it), oldest first: all of them as an array, or one page with its page
   * object and `nextCursor` when `page`, `pageSize` or `cursor` is given.
   */
  async list(principal: Principal, q: VaultListQueryDto): Promise<VaultView[] | VaultListPage> {
    const ownership: Ownership = q.shared === undefined ? 'all' : q.shared === 'true' ? 'shared' : 'owned';
    const p = offsetPage(q, DEFAULT_PAGE_SIZE);
    const [rows, total] = await this.vaults.listVisible(
      principal.tenantId,
      principal.openId,
      ownership,
      p.paged ? { offset: p.offset, limit: p.pageSize } : undefined,
    );
    const plans = await this.licenses.plansOf(rows.map((r) => r.vault.id));
    const views = rows.map((row, i) => toVaultView(row.vault, row, plans[i], this.env.VAULT_INBOX_DOMAIN));
    return p.paged ? offsetPageAnswer(views, total, p) : views;
  }

  /** Changes the vault if `ifMatch` names its current version (checked under the row lock). */
  async update(
    access: VaultAccess,
    principal: Principal,
    dto: UpdateVaultDto,
    ifMatch = IfMatchCondition.absent,
  ): Promise<ETagged<VaultView>> {
    const choice = dto.licenseKey !== undefined ? this.licenses.choose(dto.licenseKey) : undefined;
    this.branding.assertKnown(principal.tenantId, dto.brandCode ?? undefined);
    return this.tx
      .run(async (tx) => {
        const vault = await this.lockVault(tx, access.vault.id);
        ifMatch.assert(vaultETag(vault, access));
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
          if (emailUsername !== null) await this.assertEmailFree(tx, emailUsername, vault.id);
          vault.emailUsername = emailUsername;
          changed.push('emailUsername');
        }
        if (dto.default !== undefined && dto.default !== vault.isDefault) {
          // `default` is the owner's preference among the owner's vaults: an editor has no role
          // on those other vaults, so only an owner changes it (an unchanged echo is fine).
          if (access.vaultRole !== 'vault_owner') throw onlyOwnerChangesDefault();
          if (dto.default) await this.vaults.clearDefault(tx, await this.memberships.ownersOtherVaults(tx, vault));
          vault.isDefault = dto.default;
          changed.push('default');
        }
        if (choice && (await this.licenses.current(vault.id, tx))?.licenseKey !== choice.key) {
          // The licence is the owner's subscription: an editor may echo the current key, not change it.
          if (access.vaultRole !== 'vault_owner') throw onlyOwnerChangesLicence();
          await this.licenses.grant(tx, principal, vault, choice);
          changed.push('licenseKey');
        }
        if (changed.length > 0) {
          await this.vaults.save(tx, vault);
          const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: changed };
          await this.events.publish(tx, SUBJECTS.vaultUpdated, event);
        }
        const plan = await this.licenses.planOf(vault.id, tx);
        // save() read the new version back
        return callerView(toVaultView(vault, access, plan, this.env.VAULT_INBOX_DOMAIN), vault.id, vault.version, access);
      })
      .catch(mapEmailRace);
  }

  /**
   * Moves the vault to the trash with everything in it (docs/records-api.md, Trash): it
   * leaves every read now, `vault.deleted` then `vault.trashed` are published, and the
   * purger removes it at its purgeAt unless it is restored.
   */
  async remove(access: VaultAccess, principal: Principal, ifMatch = IfMatchCondition.absent): Promise<void> {
    await this.tx.run(async (tx) => {
      const vault = await this.lockVault(tx, access.vault.id);
      ifMatch.assert(vaultETag(vault, access));
      const event: VaultChangedEvent = { ...eventBase(principal, vault), changedFields: [] };
      await this.events.publish(tx, SUBJECTS.vaultDeleted, event);
      await this.trasher.trashVault(tx, vault, principal);
    });
  }

  licensesOf(access: VaultAccess): Promise<LicenseView[]> {
    return this.licenses.list(access.vault.id);
  }

  /** Whether any vault (of any tenant: inbox names are global) uses the name. */
  async checkEmail(emailUsername: string): Promise<string> {
    const taken = await this.vaults.emailUsernameTaken(emailUsername);
    return taken ? CHECK_EMAIL_ANSWERS.taken : CHECK_EMAIL_ANSWERS.available;
  }

  private async lockVault(tx: Tx, id: string): Promise<VaultEntity> {
    const [vault] = await this.vaults.lock(tx, [id]);
    if (!vault) throw vaultNotFound();
    return vault;
  }

  private async assertEmailFree(tx: Tx, emailUsername: string, exceptVaultId?: string) {
    if (await this.vaults.emailUsernameTaken(emailUsername, exceptVaultId, tx)) throw emailUsernameTaken();
  }
}
