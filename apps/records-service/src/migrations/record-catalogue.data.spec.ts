import { DISPLAY_LOCALES, OTHER_SUBTYPE, RECORD_TYPE_NAMES } from '@vault/contracts';
import { catalogueId, displayValues, RECORD_CATALOGUE } from './record-catalogue.data';

describe('record type catalogue', () => {
  it('ships the twelve types of the contract, in the documented order', () => {
    expect(RECORD_CATALOGUE.map((t) => t.type[0])).toEqual([...RECORD_TYPE_NAMES]);
  });

  it('gives every type several distinct subtypes and ends each list with other', () => {
    for (const { type, subtypes } of RECORD_CATALOGUE) {
      const names = subtypes.map((s) => s[0]);
      expect([type[0], new Set(names).size]).toEqual([type[0], names.length]);
      expect(names.length).toBeGreaterThanOrEqual(6);
      expect(names[names.length - 1]).toBe(OTHER_SUBTYPE);
    }
    const all = RECORD_CATALOGUE.flatMap((t) => t.subtypes.map((s) => s[0]));
    expect(all).toEqual(expect.arrayContaining(['passport', 'driversLicense', 'birthCertificate', 'licensePlates', 'antiques']));
  });

  it('has a non-empty display value in every locale', () => {
    for (const label of RECORD_CATALOGUE.flatMap((t) => [t.type, ...t.subtypes])) {
      const values = displayValues(label);
      expect(values.map((v) => v.locale).sort()).toEqual([...DISPLAY_LOCALES].sort());
      expect(values.every((v) => v.value.trim().length > 0)).toBe(true);
    }
  });

  it('derives stable, distinct UUIDs from names', () => {
    expect(catalogueId('type', 'identityDocs')).toBe(catalogueId('type', 'identityDocs'));
    expect(catalogueId('type', 'identityDocs')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ids = RECORD_CATALOGUE.flatMap((t) => t.subtypes.map((s) => catalogueId('subtype', `${t.type[0]}/${s[0]}`)));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the ids every deployment already stored', () => {
    expect(catalogueId('type', 'identityDocs')).toBe('779fd9f3-69e1-5f6a-891e-21905ef688b6');
    expect(catalogueId('subtype', 'identityDocs/passport')).toBe('1d0120b2-4c82-5f77-a13d-fe80b785e82e');
  });
});
