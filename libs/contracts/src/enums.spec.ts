import { ACCOUNT_LOCALES, COUNTRY_CODES, FILTER_LOCALES, GENDERS, MARITAL_STATUSES, RECORD_STATUSES } from './enums';
import { ROLE_RANK, RECORD_ROLES, VAULT_ROLES } from './roles';

describe('contract enumerations', () => {
  it('lists the 245 country codes of the contract in its order, each once', () => {
    expect(COUNTRY_CODES).toHaveLength(9 * 25 + 20);
    expect(new Set(COUNTRY_CODES).size).toBe(COUNTRY_CODES.length);
    expect(COUNTRY_CODES.slice(0, 3)).toEqual(['AF', 'AX', 'AL']);
    expect(COUNTRY_CODES[25]).toBe('BT');
    expect(COUNTRY_CODES.slice(-3)).toEqual(['YE', 'ZM', 'ZW']);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('keeps filter locales a subset of account locales without fr-CA', () => {
    expect(ACCOUNT_LOCALES).toContain('fr-CA');
    expect(FILTER_LOCALES).not.toContain('fr-CA');
    for (const l of FILTER_LOCALES) expect(ACCOUNT_LOCALES).toContain(l);
  });

  it('has the contract values of the small enumerations', () => {
    expect(MARITAL_STATUSES).toEqual(['single', 'rather_not_say', 'married', 'separated', 'divorced', 'widowed', 'defunct']);
    expect(GENDERS).toEqual(['female', 'male', 'rather_not_say', 'other']);
    expect(RECORD_STATUSES).toEqual(['ACTIVE', 'INACTIVE', 'CLOSED', 'DRAFT', 'DELETED']);
  });

  it('ranks every vault role above every record role', () => {
    const lowestVault = Math.min(...VAULT_ROLES.map((r) => ROLE_RANK[r]));
    const highestRecord = Math.max(...RECORD_ROLES.map((r) => ROLE_RANK[r]));
    expect(lowestVault).toBeGreaterThan(highestRecord);
    expect(ROLE_RANK.vault_owner).toBeGreaterThan(ROLE_RANK.vault_editor);
    expect(ROLE_RANK.rec_owner).toBeGreaterThan(ROLE_RANK.rec_editor);
  });
});
