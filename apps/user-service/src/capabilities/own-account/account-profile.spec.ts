import { applyProfile, emailsOf, phonesOf } from './account-profile';
import { AccountEntity } from '../../persistence/accounts/account.entity';

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

  it('never reads `verified` from a body: new entries start unverified, kept ones keep the stored flag', () => {
    const emails = emailsOf([{ address: 'a@example.com', verified: true }]);
    const phones = phonesOf([{ number: 1, ext: 0, mobile: true, verified: true }]);
    expect([emails[0].verified, phones[0].verified]).toEqual([false, false]);
    const storedEmails = [{ ...emails[0], verified: true }];
    const storedPhones = [{ ...phones[0], verified: true }];
    const keptEmails = emailsOf(
      [
        { address: 'A@EXAMPLE.com', verified: false },
        { address: 'b@example.com', verified: true },
      ],
      storedEmails,
    );
    const keptPhones = phonesOf(
      [
        { number: 1, ext: 0, mobile: true },
        { number: 2, ext: 0, mobile: true, verified: true },
      ],
      storedPhones,
    );
    expect(keptEmails.map((e) => e.verified)).toEqual([true, false]);
    expect(keptPhones.map((e) => e.verified)).toEqual([true, false]);
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
