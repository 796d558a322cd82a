import { SUBSCRIPTION_FEATURE_KEYS } from '@vault/contracts';
import defaultPlans from './default-plans.json';
import { parsePlansFile } from './plans-file';

const features = () => Object.fromEntries(SUBSCRIPTION_FEATURE_KEYS.map((k) => [k, '1']));

describe('parsePlansFile', () => {
  it('accepts the shipped default file, which covers every feature key of every plan', () => {
    const { file, problems } = parsePlansFile(defaultPlans);
    expect(problems).toEqual([]);
    expect(file?.plans.length).toBeGreaterThan(0);
    for (const plan of file?.plans ?? []) {
      expect(Object.keys(plan.features).sort()).toEqual([...SUBSCRIPTION_FEATURE_KEYS].sort());
    }
  });

  it('names a missing feature key, an unknown default plan and a key of an unknown plan', () => {
    const f = features();
    delete f['vault.maxVaultRecords'];
    const { file, problems } = parsePlansFile({
      defaultPlan: 'gold',
      plans: [{ id: 'basic', name: 'Basic', features: f }],
      licenseKeys: [{ key: 'K', plan: 'silver', sponsored: false }],
    });
    expect(file).toBeUndefined();
    expect(problems).toEqual(
      expect.arrayContaining([
        'plans[0].features["vault.maxVaultRecords"] must be a string',
        'defaultPlan must name one of the plans',
        'licenseKeys[0].plan "silver" is not a plan',
      ]),
    );
  });

  it('refuses non-numeric quotas, unknown features and sponsored keys without sponsor', () => {
    const f = { ...features(), 'vault.maxVaultRecords': 'many', 'vault.bogus': '1' };
    const { problems } = parsePlansFile({
      defaultPlan: 'basic',
      plans: [{ id: 'basic', name: 'Basic', features: f }],
      licenseKeys: [{ key: 'K', plan: 'basic', sponsored: true }],
    });
    expect(problems).toEqual([
      'plans[0].features["vault.bogus"] is not a known feature',
      'plans[0].features["vault.maxVaultRecords"] must be a non-negative integer string',
      'licenseKeys[0] is sponsored and needs a sponsor name',
    ]);
  });

  it('refuses something that is not an object', () => {
    expect(parsePlansFile([]).problems).toEqual(['the file must hold a JSON object']);
  });
});
