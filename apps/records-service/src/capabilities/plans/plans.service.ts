import { Injectable } from '@nestjs/common';
import type { OptionalFeatureKey, SubscriptionFeatureKey } from '@vault/contracts';
import { loadJsonConfigFile } from '../../config/json-config-file';
import { RecordsEnv } from '../../config/records.env';
import defaultPlans from './default-plans.json';
import { LicenseKeyEntry, NUMERIC_FEATURES, parsePlansFile, Plan, PlansFile } from './plans-file';

type NumericFeature = (typeof NUMERIC_FEATURES)[number];

/** Plans and licence keys from VAULT_PLANS_FILE (or the shipped default), validated at boot. */
@Injectable()
export class PlansService {
  private readonly file: PlansFile;

  constructor(env: RecordsEnv) {
    this.file = loadJsonConfigFile('VAULT_PLANS_FILE', env.VAULT_PLANS_FILE, defaultPlans, (raw) => {
      const { file, problems } = parsePlansFile(raw);
      return { value: file, problems };
    });
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

  /** A feature of OPTIONAL_FEATURE_KEYS as a number, or `fallback` when the plan does not set it. */
  optionalLimit(plan: Plan, key: OptionalFeatureKey, fallback: number): number {
    const value = (plan.features as Partial<Record<OptionalFeatureKey, string>>)[key];
    return value === undefined ? fallback : Number(value);
  }
}
