import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateAccountDto } from './account.dto';
import { parseDayMonthYear } from './validators';

describe('parseDayMonthYear', () => {
  it.each([
    ['31/01/1990', '1990-01-31'],
    ['29/02/2000', '2000-02-29'],
    ['01/12/2024', '2024-12-01'],
  ])('reads %s', (input, out) => expect(parseDayMonthYear(input)).toBe(out));

  it.each(['29/02/1900', '31/04/2020', '00/01/2020', '01/13/2020', '1/1/2020', '2020-01-01', '01/01/0000', '', 5, null])(
    'refuses %p',
    (input) => expect(parseDayMonthYear(input)).toBeNull(),
  );
});

describe('CreateAccountDto', () => {
  const check = (body: object) =>
    validateSync(plainToInstance(CreateAccountDto, body), { whitelist: true, forbidNonWhitelisted: true }).map((e) => e.property);

  it('accepts the reference spellings firsName and LastName', () => {
    expect(check({ firsName: 'A', LastName: 'B' })).toEqual([]);
    expect(check({ firstName: 'A' })).toEqual(['lastName']);
  });

  it('accepts read-only echoes and refuses other unknown fields', () => {
    expect(check({ firstName: 'A', lastName: 'B', id: 1, _id: 'x', createdAt: null, __v: 0, active: true })).toEqual([]);
    expect(check({ firstName: 'A', lastName: 'B', admin: true })).toEqual(['admin']);
  });

  it('refuses repeated and multiple primary emails', () => {
    expect(check({ firstName: 'A', lastName: 'B', emails: [{ address: 'a@x.io' }, { address: 'A@x.io' }] })).toEqual(['emails']);
    expect(
      check({
        firstName: 'A',
        lastName: 'B',
        emails: [
          { address: 'a@x.io', primary: true },
          { address: 'b@x.io', primary: true },
        ],
      }),
    ).toEqual(['emails']);
  });
});
