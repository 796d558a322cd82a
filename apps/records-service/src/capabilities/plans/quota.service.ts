import { Injectable } from '@nestjs/common';
import type { Principal, VaultStorageUsageView } from '@vault/contracts';
import { MembershipRepository } from '../../persistence/memberships/membership.repository';
import type { Tx } from '@vault/platform/persistence';
import { UsageRepository } from '../../persistence/usage/usage.repository';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import type { RowsSource } from '../../persistence/entity-rows';
import type { ProblemException } from '@vault/platform/errors';
import { LicensesService } from './licenses.service';
import { Plan } from './plans-file';
import { maxOwnedVaultsReached, maxRecordsReached, storageQuotaExceeded } from './plans.errors';
import { PlansService } from './plans.service';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Unpinned versions of a file kept when the plan does not set vault.fileVersions. */
export const DEFAULT_FILE_VERSIONS = 10;

/** QuotaService.recordPlace: the claim, part of the creating statement, and the error its refusal becomes. */
export interface RecordPlaceClaim {
  claim: RowsSource;
  refused(): ProblemException;
}

/** Plan limits of an upload into a vault, in bytes. */
export interface UploadLimits {
  maxUploadBytes: number;
  quotaRemainingBytes: number;
}

/**
 * The one place where plan limits meet usage: owned vaults per account, records per
 * vault, bytes per upload and per vault. Checks that guard a change run inside its
 * transaction after the vault rows are locked (VaultRepository.lock), so concurrent
 * changes of one vault cannot both pass.
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly licenses: LicensesService,
    private readonly plans: PlansService,
    private readonly usage: UsageRepository,
    private readonly memberships: MembershipRepository,
    private readonly vaults: VaultRepository,
  ) {}

  /**
   * Refuses a new vault when the account already owns as many as the most generous of
   * its plans (the new vault's included) allows. Returns the ids of the owned vaults.
   */
  async assertCanOwnAnotherVault(tx: Tx, principal: Pick<Principal, 'tenantId' | 'openId'>, newPlan: Plan): Promise<string[]> {
    const owned = await this.memberships.ownedVaultIds(tx, principal.tenantId, principal.openId);
    const plans = [newPlan, ...(await this.licenses.currentPlans(tx, owned))];
    const max = Math.max(...plans.map((p) => this.plans.limit(p, 'account.maxOwnedVaults')));
    if (owned.length >= max) throw maxOwnedVaultsReached(max);
    return owned;
  }

  /**
   * Refuses one more live record in a vault that holds its plan's vault.maxVaultRecords;
   * `vault` is the row locked by this transaction, with its live-record counter.
   */
  async assertRoomForRecord(tx: Tx, vault: { id: string; liveRecords: number }): Promise<void> {
    const max = this.plans.limit(await this.licenses.planOf(vault.id, tx), 'vault.maxVaultRecords');
    if (vault.liveRecords >= max) throw maxRecordsReached(max);
  }

  /**
   * The claim of a place for one more live record in the vault (an atomic conditional
   * increment of the vault's counter, the first part of the creating statement), and what its
   * refusal means: 409 when the vault holds its plan's vault.maxVaultRecords.
   */
  async recordPlace(vaultId: string): Promise<RecordPlaceClaim> {
    const max = this.plans.limit(await this.licenses.planOf(vaultId), 'vault.maxVaultRecords');
    return { claim: this.vaults.recordPlaceClaim(vaultId, max), refused: () => maxRecordsReached(max) };
  }

  /** Whether a vault on `plan` with `liveRecords` records holds as many as the plan allows. */
  recordsFull(plan: Plan, liveRecords: number): boolean {
    return liveRecords >= this.plans.limit(plan, 'vault.maxVaultRecords');
  }

  /** Per-upload limit and room left in the vault, read before an upload's bytes arrive. */
  async uploadLimits(vaultId: string): Promise<UploadLimits> {
    const plan = await this.licenses.planOf(vaultId);
    const maxVault = this.plans.limit(plan, 'vault.maxVaultGBs') * GiB;
    const used = await this.usage.vaultBytes(vaultId);
    return {
      maxUploadBytes: this.plans.limit(plan, 'vault.maxUploadMBs') * MiB,
      quotaRemainingBytes: Math.max(0, maxVault - used),
    };
  }

  /** Refuses `adding` more bytes of files in a vault beyond its plan's vault.maxVaultGBs. */
  async assertRoomForBytes(tx: Tx, vaultId: string, adding: number): Promise<void> {
    const max = this.plans.limit(await this.licenses.planOf(vaultId, tx), 'vault.maxVaultGBs') * GiB;
    if ((await this.usage.vaultBytes(vaultId, tx)) + adding > max) throw storageQuotaExceeded();
  }

  /** How many unpinned versions of a file the vault keeps (vault.fileVersions, default 10); older ones go to the trash. */
  async fileVersionsKept(tx: Tx, vaultId: string): Promise<number> {
    return this.plans.optionalLimit(await this.licenses.planOf(vaultId, tx), 'vault.fileVersions', DEFAULT_FILE_VERSIONS);
  }

  /** The vault's storage against vault.maxVaultGBs, with what its stored bytes are. */
  async storageUsage(vaultId: string): Promise<VaultStorageUsageView> {
    const plan = await this.licenses.planOf(vaultId);
    const b = await this.usage.vaultBreakdown(vaultId);
    return {
      limitBytes: this.plans.limit(plan, 'vault.maxVaultGBs') * GiB,
      usedBytes: b.storedBytes + b.uploadingBytes,
      ...b,
    };
  }

  /** A record moving into `vaultId` brings its files: the vault must have room for them. */
  async assertRoomForRecordFiles(tx: Tx, recordId: string, vaultId: string): Promise<void> {
    const size = await this.usage.recordBytes(recordId, tx);
    if (size > 0) await this.assertRoomForBytes(tx, vaultId, size);
  }
}
