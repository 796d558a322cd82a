import { SUBJECTS } from '@vault/contracts';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { accountEvents, accountState, stateChanged } from './account-outbox';

const id = '0b8f6a3e-2f4c-4a39-9a55-0f0e8e4c2b11';
/** The projected fields of the account below. */
const projected = {
  tenantId: 'acme',
  openId: 'vault|ann',
  username: 'ann@example.com',
  firstName: 'Ann',
  lastName: 'Lee',
  active: true,
};

const account = () =>
  Object.assign(new AccountEntity(), { id, ...projected, version: 4, gender: 'female', emails: [], phones: [] });

describe('account outbox', () => {
  it('sees a change of names, username or active, not of other fields or the version alone', () => {
    const before = accountState(account());
    for (const change of [{ firstName: 'Anna' }, { lastName: 'Li' }, { username: 'anna@example.com' }, { active: false }]) {
      expect(stateChanged(before, accountState(Object.assign(account(), change)))).toBe(true);
    }
    const untouched = Object.assign(account(), { version: 5, gender: 'male', phones: [{ number: 1 }] });
    expect(stateChanged(before, accountState(untouched))).toBe(false);
  });

  it('makes one event per account with its own id, the full state and the time', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const [a, b] = accountEvents(
      SUBJECTS.accountUpdated,
      [account(), Object.assign(account(), { id: 'other' })].map(accountState),
      at,
    );
    expect(a).toEqual({
      id: expect.any(String),
      subject: 'account.updated.v2',
      occurredAt: at,
      payload: { accountId: id, ...projected, version: 4, occurredAt: '2026-01-02T03:04:05.678Z' },
    });
    expect(b.id).not.toBe(a.id);
    expect(b.payload.accountId).toBe('other');
  });
});
