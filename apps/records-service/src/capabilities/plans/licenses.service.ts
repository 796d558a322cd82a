import { Injectable } from '@nestjs/common';
import { LicenseCreatedEvent, LicenseView, Principal, SUBJECTS } from '@vault/contracts';
import { eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';
import { LicenseEntity } from '../../persistence/licenses/license.entity';
import { LicenseRepository } from '../../persistence/licenses/license.repository';
import type { Tx } from '@vault/platform/persistence';
import { Plan } from './plans-file';
import { unknownLicenseKey } from './plans.errors';
import { PlansService } from './plans.service';

/** Licences run for a year from the day they are granted. */
const LICENSE_TERM_MONTHS = 12;

export interface LicenseChoice {
  plan: Plan;
  key: string | null;
  sponsored: boolean;
  sponsor: string | null;
}

/** Subscription licences of vaults: which plan a vault is on and since when. */
@Injectable()
export class LicensesService {
  constructor(
    private readonly licenses: LicenseRepository,
    private readonly plans: PlansService,
    private readonly events: EventPublisher,
  ) {}

  /** The plan a licence key grants (the default plan without a key); an unknown key is a 400. */
  choose(licenseKey: string | undefined): LicenseChoice {
    if (licenseKey === undefined) {
      return { plan: this.plans.defaultPlan(), key: null, sponsored: false, sponsor: null };
    }
    const entry = this.plans.licenseKey(licenseKey);
    if (!entry) throw unknownLicenseKey();
    return {
      plan: this.plans.plan(entry.plan),
      key: entry.key,
      sponsored: entry.sponsored,
      sponsor: entry.sponsored ? (entry.sponsor ?? null) : null,
    };
  }

  /** Stores a licence for the vault and publishes license.created, in the caller's transaction. */
  async grant(
    tx: Tx,
    principal: Principal,
    vault: { id: string; name: string; tenantId: string },
    choice: LicenseChoice,
  ): Promise<LicenseEntity> {
    const renewsOn = new Date();
    renewsOn.setUTCMonth(renewsOn.getUTCMonth() + LICENSE_TERM_MONTHS);
    const license = await this.licenses.insert(tx, {
      vaultId: vault.id,
      tenantId: vault.tenantId,
      planId: choice.plan.id,
      licenseKey: choice.key,
      sponsored: choice.sponsored,
      sponsor: choice.sponsor,
      renewsOn,
    });
    const event: LicenseCreatedEvent = {
      ...eventBase(principal, vault),
      subscriptionId: license.id,
      planId: license.planId,
      sponsored: license.sponsored,
      ...(license.sponsor ? { sponsor: license.sponsor } : {}),
    };
    await this.events.publish(tx, SUBJECTS.licenseCreated, event);
    return license;
  }

  /** The newest licence of a vault. */
  current(vaultId: string, tx?: Tx): Promise<LicenseEntity | null> {
    return this.licenses.current(vaultId, tx);
  }

  /** The plan a vault is on now. */
  async planOf(vaultId: string, tx?: Tx): Promise<Plan> {
    const planId = await this.licenses.currentPlanId(vaultId, tx);
    return planId !== undefined ? this.plans.plan(planId) : this.plans.defaultPlan();
  }

  /** The plans the vaults are on now, in one statement (the default plan stands for vaults without a licence). */
  async currentPlans(tx: Tx, vaultIds: string[]): Promise<Plan[]> {
    const plans = (await this.licenses.currentPlanIds(tx, vaultIds)).map((id) => this.plans.plan(id));
    if (plans.length < vaultIds.length) plans.push(this.plans.defaultPlan());
    return plans;
  }

  /** The plan each vault is on now, in the order of `vaultIds`, in one statement (the default plan for vaults without a licence). */
  async plansOf(vaultIds: string[]): Promise<Plan[]> {
    const ids = await this.licenses.currentPlanIdsByVault(vaultIds);
    return vaultIds.map((v) => {
      const planId = ids.get(v);
      return planId ? this.plans.plan(planId) : this.plans.defaultPlan();
    });
  }

  async list(vaultId: string): Promise<LicenseView[]> {
    const rows = await this.licenses.list(vaultId);
    return rows.map((l) => {
      const plan = this.plans.plan(l.planId);
      return {
        subscriptionId: l.id,
        plan: { id: plan.id, name: plan.name },
        sponsored: l.sponsored,
        ...(l.sponsored && l.sponsor ? { sponsor: l.sponsor } : {}),
        renewsOn: l.renewsOn.toISOString(),
      };
    });
  }
}
