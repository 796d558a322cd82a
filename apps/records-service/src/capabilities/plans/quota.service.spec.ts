import { FILE_ERROR_CODES, Principal, RECORDS_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { RecordsEnv } from '../../config/records.env';
import type { MembershipRepository } from '../../persistence/memberships/membership.repository';
import type { Tx } from '@vault/platform/persistence';
import type { UsageRepository } from '../../persistence/usage/usage.repository';
import type { VaultRepository } from '../../persistence/vaults/vault.repository';
import type { LicensesService } from './licenses.service';
import type { Plan } from './plans-file';
import { PlansService } from './plans.service';
import { QuotaService } from './quota.service';

// The rules of the quota service, run against in-memory stand-ins of the repositories:
// no database is needed to test them (the suites in test/ cover the queries).

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const tx = {} as Tx;
const plans = new PlansService(Object.assign(new RecordsEnv(), { VAULT_PLANS_FILE: undefined }));
const principal = { tenantId: 't1', openId: 'u1' } as Principal;

function quotaWith(state: { planOf: Record<string, string>; bytes?: number; owned?: string[] }) {
  const planOf = (id: string) => plans.plan(state.planOf[id] ?? 'free');
  const licenses = {
    planOf: async (id: string) => planOf(id),
    currentPlans: async (_tx: Tx, ids: string[]) => ids.map(planOf),
  } as unknown as LicensesService;
  const usage = {
    vaultBytes: async () => state.bytes ?? 0,
    recordBytes: async () => 5 * MiB,
  } as unknown as UsageRepository;
  const memberships = { ownedVaultIds: async () => state.owned ?? [] } as unknown as MembershipRepository;
  // the statement is the repository's own (the increment itself runs in PostgreSQL: test/quotas.spec.ts)
  const vaults = {
    recordPlaceClaim: (id: string, max: number) => ({ sql: () => 'claim', params: [id, max] }),
  } as unknown as VaultRepository;
  return new QuotaService(licenses, plans, usage, memberships, vaults);
}

async function problemOf(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ProblemException)) throw new Error(`expected a problem, got ${String(err)}`);
  return { status: err.getStatus(), code: err.code };
}

describe('QuotaService', () => {
  it('refuses a record at the plan limit and allows one below it', async () => {
    await expect(quotaWith({ planOf: {} }).assertRoomForRecord(tx, { id: 'v1', liveRecords: 99 })).resolves.toBeUndefined();
    expect(await problemOf(quotaWith({ planOf: {} }).assertRoomForRecord(tx, { id: 'v1', liveRecords: 100 }))).toEqual({
      status: 409,
      code: RECORDS_ERROR_CODES.maxRecordsReached,
    });
    await expect(
      quotaWith({ planOf: { v1: 'premium' } }).assertRoomForRecord(tx, { id: 'v1', liveRecords: 100 }),
    ).resolves.toBeUndefined();
  });

  it("claims a record place below the vault plan's limit, and refuses as 409 max_records_reached", async () => {
    const place = await quotaWith({ planOf: { v1: 'premium' } }).recordPlace('v1');
    expect(place.claim.params).toEqual(['v1', plans.limit(plans.plan('premium'), 'vault.maxVaultRecords')]);
    expect(await problemOf(Promise.reject(place.refused()))).toEqual({
      status: 409,
      code: RECORDS_ERROR_CODES.maxRecordsReached,
    });
  });

  it('counts owned vaults against the most generous plan among them and the new one', async () => {
    const three = ['a', 'b', 'c'];
    const free: Plan = plans.plan('free');
    expect(await problemOf(quotaWith({ planOf: {}, owned: three }).assertCanOwnAnotherVault(tx, principal, free))).toEqual({
      status: 409,
      code: RECORDS_ERROR_CODES.maxOwnedVaultsReached,
    });
    await expect(
      quotaWith({ planOf: { b: 'premium' }, owned: three }).assertCanOwnAnotherVault(tx, principal, free),
    ).resolves.toEqual(three);
    await expect(
      quotaWith({ planOf: {}, owned: three }).assertCanOwnAnotherVault(tx, principal, plans.plan('premium')),
    ).resolves.toEqual(three);
  });

  it('gives the per-upload limit and the room left, never below zero', async () => {
    await expect(quotaWith({ planOf: {}, bytes: GiB - 3 * MiB }).uploadLimits('v1')).resolves.toEqual({
      maxUploadBytes: 10 * MiB,
      quotaRemainingBytes: 3 * MiB,
    });
    await expect(quotaWith({ planOf: {}, bytes: 2 * GiB }).uploadLimits('v1')).resolves.toEqual({
      maxUploadBytes: 10 * MiB,
      quotaRemainingBytes: 0,
    });
  });

  it('refuses bytes beyond the vault storage, also for the files of a moving record', async () => {
    const nearlyFull = quotaWith({ planOf: {}, bytes: GiB - 4 * MiB });
    await expect(nearlyFull.assertRoomForBytes(tx, 'v1', 4 * MiB)).resolves.toBeUndefined();
    expect(await problemOf(nearlyFull.assertRoomForBytes(tx, 'v1', 4 * MiB + 1))).toEqual({
      status: 409,
      code: FILE_ERROR_CODES.storageQuotaExceeded,
    });
    expect(await problemOf(nearlyFull.assertRoomForRecordFiles(tx, 'r1', 'v1'))).toEqual({
      status: 409,
      code: FILE_ERROR_CODES.storageQuotaExceeded,
    });
  });

  it('tells when a vault is full of records', () => {
    const q = quotaWith({ planOf: {} });
    expect([q.recordsFull(plans.plan('free'), 99), q.recordsFull(plans.plan('free'), 100)]).toEqual([false, true]);
  });
});
