import { OPTIONAL_FEATURE_KEYS, SUBSCRIPTION_FEATURE_KEYS, type SubscriptionFeatures } from '@vault/contracts';

export interface Plan {
  id: string;
  name: string;
  features: SubscriptionFeatures;
}

export interface LicenseKeyEntry {
  key: string;
  plan: string;
  sponsored: boolean;
  sponsor?: string;
}

export interface PlansFile {
  defaultPlan: string;
  plans: Plan[];
  licenseKeys: LicenseKeyEntry[];
}

/** Features read as numbers (quotas); each must be a non-negative integer string. */
export const NUMERIC_FEATURES = [
  'account.licensePriority',
  'account.maxOwnedVaults',
  'vault.maxVaultRecords',
  'vault.maxVaultGBs',
  'vault.maxUploadMBs',
  'account.sponsorVaults',
] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * Checks a plans file (VAULT_PLANS_FILE format) and returns it typed, or the list
 * of every problem found, so a bad file stops the service at boot.
 */
export function parsePlansFile(raw: unknown): { file?: PlansFile; problems: string[] } {
  const problems: string[] = [];
  if (!isObject(raw)) return { problems: ['the file must hold a JSON object'] };
  const plans = Array.isArray(raw['plans']) ? raw['plans'] : [];
  if (plans.length === 0) problems.push('plans must be a non-empty array');
  const ids = new Set<string>();
  plans.forEach((p: unknown, i) => {
    if (!isObject(p) || !isText(p['id']) || !isText(p['name']) || !isObject(p['features'])) {
      problems.push(`plans[${i}] needs id, name (strings) and features (object)`);
      return;
    }
    if (ids.has(p['id'])) problems.push(`plans[${i}].id "${p['id']}" is repeated`);
    ids.add(p['id']);
    const features = p['features'];
    for (const key of SUBSCRIPTION_FEATURE_KEYS) {
      if (typeof features[key] !== 'string') problems.push(`plans[${i}].features["${key}"] must be a string`);
    }
    for (const key of Object.keys(features)) {
      if (![...SUBSCRIPTION_FEATURE_KEYS, ...OPTIONAL_FEATURE_KEYS].includes(key as never)) {
        problems.push(`plans[${i}].features["${key}"] is not a known feature`);
      }
    }
    for (const key of [...NUMERIC_FEATURES, ...OPTIONAL_FEATURE_KEYS]) {
      const v = features[key];
      if (typeof v === 'string' && !/^\d+$/.test(v)) {
        problems.push(`plans[${i}].features["${key}"] must be a non-negative integer string`);
      }
    }
  });
  if (!isText(raw['defaultPlan']) || !ids.has(raw['defaultPlan'])) {
    problems.push('defaultPlan must name one of the plans');
  }
  const keys = raw['licenseKeys'] === undefined ? [] : raw['licenseKeys'];
  const seen = new Set<string>();
  if (!Array.isArray(keys)) {
    problems.push('licenseKeys must be an array');
  } else {
    keys.forEach((k: unknown, i) => {
      if (!isObject(k) || !isText(k['key']) || !isText(k['plan']) || typeof k['sponsored'] !== 'boolean') {
        problems.push(`licenseKeys[${i}] needs key, plan (strings) and sponsored (boolean)`);
        return;
      }
      if (!ids.has(k['plan'])) problems.push(`licenseKeys[${i}].plan "${k['plan']}" is not a plan`);
      if (seen.has(k['key'])) problems.push(`licenseKeys[${i}].key is repeated`);
      seen.add(k['key']);
      if (k['sponsored'] && !isText(k['sponsor'])) {
        problems.push(`licenseKeys[${i}] is sponsored and needs a sponsor name`);
      }
    });
  }
  if (problems.length > 0) return { problems };
  return { file: { ...(raw as unknown as PlansFile), licenseKeys: keys as LicenseKeyEntry[] }, problems };
}
