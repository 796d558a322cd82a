import { RECORD_ROLES, RecordRole, VAULT_ROLES, VaultRole } from '@vault/contracts';
import { grants, parseRule, ParsedRule } from './roles';

const rule = (s: string): ParsedRule => {
  const parsed = parseRule(s);
  if (!parsed) throw new Error(`not a rule: ${s}`);
  return parsed;
};

const vaultRolesGranting = (name: string) => VAULT_ROLES.filter((r) => grants(rule(name), r, undefined));
const recordRolesGranting = (name: string) => RECORD_ROLES.filter((r) => grants(rule(name), undefined, r));

describe('role rules', () => {
  it('parses only vault and record rules with a known level', () => {
    expect(parseRule('vault:editor')).toEqual({ domain: 'vault', level: 'editor' });
    expect(parseRule('record:info')).toEqual({ domain: 'record', level: 'info' });
    expect(parseRule('vault:admin')).toBeUndefined();
    expect(parseRule('authenticated')).toBeUndefined();
    expect(parseRule(undefined)).toBeUndefined();
  });

  it('grants vault levels by rank of vault roles only', () => {
    expect(vaultRolesGranting('vault:owner')).toEqual(['vault_owner']);
    expect(vaultRolesGranting('vault:editor')).toEqual(['vault_owner', 'vault_editor']);
    expect(vaultRolesGranting('vault:viewer')).toEqual(['vault_owner', 'vault_editor', 'vault_viewer']);
    expect(vaultRolesGranting('vault:info')).toEqual([...VAULT_ROLES]);
    expect(recordRolesGranting('vault:info')).toEqual([]);
  });

  it('grants record levels to vault roles and to roles on the record', () => {
    expect(vaultRolesGranting('record:owner')).toEqual(['vault_owner', 'vault_editor']);
    expect(recordRolesGranting('record:owner')).toEqual(['rec_owner']);
    expect(recordRolesGranting('record:editor')).toEqual(['rec_owner', 'rec_editor']);
    expect(vaultRolesGranting('record:viewer')).toEqual(['vault_owner', 'vault_editor', 'vault_viewer']);
    expect(recordRolesGranting('record:viewer')).toEqual(['rec_owner', 'rec_editor', 'rec_viewer']);
    expect(recordRolesGranting('record:info')).toEqual([...RECORD_ROLES]);
  });

  it('grants vault:guest to every vault role and to a role on a record of the vault', () => {
    expect(parseRule('vault:guest')).toEqual({ domain: 'vault', level: 'guest' });
    expect(parseRule('record:guest')).toBeUndefined();
    expect(vaultRolesGranting('vault:guest')).toEqual([...VAULT_ROLES]);
    expect(recordRolesGranting('vault:guest')).toEqual([...RECORD_ROLES]);
    expect(grants(rule('vault:guest'), undefined, undefined)).toBe(false);
    // a record role opens no other vault level
    for (const level of ['info', 'viewer', 'editor', 'owner']) expect(recordRolesGranting(`vault:${level}`)).toEqual([]);
  });

  it('grants nothing without a role', () => {
    expect(grants(rule('record:info'), undefined as VaultRole | undefined, undefined as RecordRole | undefined)).toBe(false);
  });
});
