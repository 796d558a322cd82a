import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  LicenseCreatedEvent,
  LicenseView,
  Principal,
  RECORDS_ERROR_CODES,
  SUBJECTS,
} from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { EntityManager, Repository } from 'typeorm';
import { EventPublisher } from '../events/event-publisher';
import { eventBase } from '../events/event-payload';
import { LicenseEntity } from './license.entity';
import { Plan } from './plans-file';
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
    @InjectRepository(LicenseEntity) private readonly licenses: Repository<LicenseEntity>,
    private readonly plans: PlansService,
    private readonly events: EventPublisher,
  ) {}

  /** The plan a licence key grants (the default plan without a key); an unknown key is a 400. */
  choose(licenseKey: string | undefined): LicenseChoice {
    if (licenseKey === undefined) {
      return { plan: this.plans.defaultPlan(), key: null, sponsored: false, sponsor: null };
    }
    const entry = this.plans.licenseKey(licenseKey);
    if (!entry) {
      throw new ProblemException(400, RECORDS_ERROR_CODES.unknownLicenseKey, 'The licence key is not valid.', [
        { field: 'licenseKey', message: 'licenseKey is not a known licence key' },
      ]);
    }
    return {
      plan: this.plans.plan(entry.plan),
      key: entry.key,
      sponsored: entry.sponsored,
      sponsor: entry.sponsored ? (entry.sponsor ?? null) : null,
    };
  }

  /** Stores a licence for the vault and publishes license.created, in the caller's transaction. */
  async grant(
    manager: EntityManager,
    principal: Principal,
    vault: { id: string; name: string; tenantId: string },
    choice: LicenseChoice,
  ): Promise<LicenseEntity> {
    const renewsOn = new Date();
    renewsOn.setUTCMonth(renewsOn.getUTCMonth() + LICENSE_TERM_MONTHS);
    const license = await manager.save(
      manager.create(LicenseEntity, {
        vaultId: vault.id,
        tenantId: vault.tenantId,
        planId: choice.plan.id,
        licenseKey: choice.key,
        sponsored: choice.sponsored,
        sponsor: choice.sponsor,
        renewsOn,
      }),
    );
    const event: LicenseCreatedEvent = {
      ...eventBase(principal, vault),
      subscriptionId: license.id,
      planId: license.planId,
      sponsored: license.sponsored,
      ...(license.sponsor ? { sponsor: license.sponsor } : {}),
    };
    await this.events.publish(manager, SUBJECTS.licenseCreated, event);
    return license;
  }

  /** The newest licence of a vault. */
  async current(vaultId: string, manager?: EntityManager): Promise<LicenseEntity | null> {
    const repo = manager ? manager.getRepository(LicenseEntity) : this.licenses;
    return repo.findOne({ where: { vaultId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The plan a vault is on now. */
  async planOf(vaultId: string, manager?: EntityManager): Promise<Plan> {
    const license = await this.current(vaultId, manager);
    return license ? this.plans.plan(license.planId) : this.plans.defaultPlan();
  }

  async list(vaultId: string): Promise<LicenseView[]> {
    const rows = await this.licenses.find({ where: { vaultId }, order: { createdAt: 'ASC', id: 'ASC' } });
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
