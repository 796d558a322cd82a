import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AccountCreatedEvent, AccountDeletedEvent, AccountUpdatedEvent } from './events';

const state = {
  accountId: '0b8f6a3e-2f4c-4a39-9a55-0f0e8e4c2b11',
  tenantId: 'acme',
  openId: 'vault|ann',
  username: 'ann@example.com',
  firstName: 'Ann',
  lastName: 'Lee',
  active: true,
  version: 3,
  occurredAt: '2026-01-02T03:04:05.678Z',
};

async function invalid(cls: new () => object, body: object): Promise<string[]> {
  const errors = await validate(plainToInstance(cls, body), { forbidUnknownValues: true });
  return errors.map((e) => e.property).sort();
}

describe('account event payloads', () => {
  it('accept the full state on created and updated', async () => {
    expect(await invalid(AccountCreatedEvent, { ...state, version: 1 })).toEqual([]);
    expect(await invalid(AccountUpdatedEvent, state)).toEqual([]);
  });

  it('refuse a payload missing a field of the state, or with a wrong type', async () => {
    const { version: _v, username: _u, ...partial } = state;
    expect(await invalid(AccountUpdatedEvent, partial)).toEqual(['username', 'version']);
    expect(
      await invalid(AccountUpdatedEvent, { ...state, accountId: 'x', active: 'yes', version: 0, occurredAt: 'today' }),
    ).toEqual(['accountId', 'active', 'occurredAt', 'version']);
    expect(await invalid(AccountCreatedEvent, { ...state, tenantId: '', firstName: null })).toEqual(['firstName', 'tenantId']);
  });

  it('take a deleted account as inactive only', async () => {
    expect(await invalid(AccountDeletedEvent, { ...state, active: false })).toEqual([]);
    expect(await invalid(AccountDeletedEvent, { ...state, active: true })).toEqual(['active']);
  });
});
