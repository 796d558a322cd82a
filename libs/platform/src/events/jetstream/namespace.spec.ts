import { EventNamespace } from './namespace';

describe('EventNamespace', () => {
  it('leaves names alone without a namespace', () => {
    const ns = new EventNamespace('');
    expect([ns.subject('vault.a.v1'), ns.stream('VAULT_EVENTS'), ns.unprefix('vault.a.v1')]).toEqual([
      'vault.a.v1',
      'VAULT_EVENTS',
      'vault.a.v1',
    ]);
  });

  it('prefixes subjects and streams, and strips its own prefix only', () => {
    const ns = new EventNamespace('t_1');
    expect(ns.subject('vault.>')).toBe('t_1.vault.>');
    expect(ns.stream('VAULT_EVENTS')).toBe('t_1_VAULT_EVENTS');
    expect(ns.unprefix('t_1.vault.record.created.v1')).toBe('vault.record.created.v1');
    expect(ns.unprefix('other.vault.x')).toBe('other.vault.x');
  });

  it('refuses characters that are not safe in subjects and stream names', () => {
    expect(() => new EventNamespace('a.b')).toThrow(/namespace/);
    expect(() => new EventNamespace('a b')).toThrow(/namespace/);
  });
});
