import { applyProfile, emailsOf, phonesOf } from './account-profile';
import { AccountEntity } from './account.entity';

describe('account profile', () => {
  it('keeps the _id of an address that stays (case-insensitive) and gives new ones their own', () => {
    const before = emailsOf([{ address: 'a@example.com', primary: true }]);
    const after = emailsOf([{ address: 'A@example.com' }, { address: 'b@example.com' }], before);
    expect(after[0]).toEqual({ _id: before[0]._id, address: 'A@example.com', primary: false, verified: false });
    expect(after[1]._id).not.toBe(before[0]._id);
  });

  it('keeps the _id of a phone number that stays', () => {
    const before = phonesOf([{ number: 1, ext: 0, mobile: true }]);
    const after = phonesOf([{ number: 1, ext: 5, mobile: false }], before);
    expect(after).toEqual([{ _id: before[0]._id, number: 1, ext: 5, mobile: false, primary: false, verified: false }]);
  });

  it('replaces every updatable field, absent ones with null, aliases accepted, echoes ignored', () => {
    const a = Object.assign(new AccountEntity(), {
      id: 'keep',
      gender: 'male',
      referralCode: 'old',
      phones: [],
      primaryResidence: { id: 'r1', city: 'Old' },
    });
    applyProfile(a, {
      firsName: 'Ann',
      LastName: 'Lee',
      dateOfBirth: '05/06/2001',
      primaryResidence: { city: 'Ottawa', id: 'forged' },
      id: 'forged',
    });
    expect(a).toMatchObject({
      id: 'keep',
      firstName: 'Ann',
      lastName: 'Lee',
      dateOfBirth: '2001-06-05',
      gender: null,
      referralCode: null,
      primaryResidence: { id: 'r1', city: 'Ottawa', country: null },
    });
  });
});
