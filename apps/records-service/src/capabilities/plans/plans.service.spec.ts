import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvValidationError } from '@vault/platform/config';
import { RecordsEnv } from '../../config/records.env';
import { PlansService } from './plans.service';

const envWith = (VAULT_PLANS_FILE?: string) => Object.assign(new RecordsEnv(), { VAULT_PLANS_FILE });

describe('PlansService', () => {
  it('uses the shipped plans without VAULT_PLANS_FILE', () => {
    const plans = new PlansService(envWith());
    expect(plans.defaultPlan().id).toBe('free');
    expect(plans.licenseKey('PREMIUM-DEMO-2026')?.plan).toBe('premium');
    expect(plans.licenseKey('premium-demo-2026')).toBeUndefined();
    expect(plans.limit(plans.defaultPlan(), 'vault.maxVaultRecords')).toBe(100);
  });

  it('stops the boot on a missing or invalid file, naming the variable', () => {
    expect(() => new PlansService(envWith('/nonexistent/plans.json'))).toThrow(/VAULT_PLANS_FILE: cannot read/);
    const path = join(mkdtempSync(join(tmpdir(), 'plans-')), 'bad.json');
    writeFileSync(path, JSON.stringify({ defaultPlan: 'x', plans: [] }));
    let error: unknown;
    try {
      new PlansService(envWith(path));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvValidationError);
    expect((error as EnvValidationError).problems).toEqual([
      'VAULT_PLANS_FILE: plans must be a non-empty array',
      'VAULT_PLANS_FILE: defaultPlan must name one of the plans',
    ]);
  });

  it('falls back to the default plan for a licence whose plan left the configuration', () => {
    const plans = new PlansService(envWith());
    expect(plans.plan('retired').id).toBe('free');
  });
});
