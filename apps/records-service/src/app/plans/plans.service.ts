import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import type { SubscriptionFeatureKey } from '@vault/contracts';
import { EnvValidationError } from '@vault/platform';
import { RecordsEnv } from '../../config/records.env';
import defaultPlans from './default-plans.json';
import { LicenseKeyEntry, NUMERIC_FEATURES, parsePlansFile, Plan, PlansFile } from './plans-file';

type NumericFeature = (typeof NUMERIC_FEATURES)[number];

/** Plans and licence keys from VAULT_PLANS_FILE (or the shipped default), validated at boot. */
@Injectable()
export class PlansService {
  private readonly file: PlansFile;

  constructor(env: RecordsEnv) {
    let raw: unknown = defaultPlans;
    const path = env.VAULT_PLANS_FILE;
    if (path) {
      try {
        raw = JSON.parse(readFileSync(path, 'utf8'));
      } catch (err) {
        throw new EnvValidationError([`VAULT_PLANS_FILE: cannot read ${path}: ${(err as Error).message}`]);
      }
    }
    const { file, problems } = parsePlansFile(raw);
    if (!file) throw new EnvValidationError(problems.map((p) => `VAULT_PLANS_FILE: ${p}`));
    this.file = file;
  }

  defaultPlan(): Plan {
    return this.plan(this.file.defaultPlan);
  }

  /** The plan of a stored licence; a plan removed from configuration falls back to the default. */
  plan(id: string): Plan {
    return this.file.plans.find((p) => p.id === id) ?? this.plan(this.file.defaultPlan);
  }

  licenseKey(key: string): LicenseKeyEntry | undefined {
    return this.file.licenseKeys.find((k) => k.key === key);
  }

  limit(plan: Plan, key: NumericFeature & SubscriptionFeatureKey): number {
    return Number(plan.features[key]);
  }
}
