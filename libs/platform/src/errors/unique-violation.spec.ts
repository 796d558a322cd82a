import { USER_ERRORS } from '@vault/contracts';
import { QueryFailedError } from 'typeorm';
import { ProblemException } from './problem.exception';
import { mapUniqueViolation, sqlStateOf, uniqueViolationConstraint } from './unique-violation';

/** A unique violation as TypeORM raises it: the driver's error in driverError. */
function violation(constraint: string | undefined, code = '23505'): QueryFailedError {
  return new QueryFailedError('INSERT …', [], Object.assign(new Error('duplicate key'), { code, constraint }));
}

const taken = () => ProblemException.of(USER_ERRORS.usernameTaken, 'The username is already in use.');
const PROBLEMS = { accounts_tenant_username_key: taken };

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('nothing was thrown');
}

describe('mapUniqueViolation', () => {
  it('rethrows a violation of a named constraint as its problem', () => {
    const e = thrownBy(() => mapUniqueViolation(violation('accounts_tenant_username_key'), PROBLEMS));
    expect(e).toBeInstanceOf(ProblemException);
    expect((e as ProblemException).getStatus()).toBe(409);
    expect((e as ProblemException).code).toBe('username_taken');
  });

  it('reads raw driver errors too', () => {
    const raw = Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'accounts_tenant_username_key' });
    expect((thrownBy(() => mapUniqueViolation(raw, PROBLEMS)) as ProblemException).code).toBe('username_taken');
  });

  it('rethrows everything else unchanged', () => {
    const others: unknown[] = [
      violation('some_other_key'),
      violation(undefined),
      violation('accounts_tenant_username_key', '23503'),
      violation('toString'),
      new Error('boom'),
      'text',
      null,
    ];
    for (const err of others) expect(thrownBy(() => mapUniqueViolation(err, PROBLEMS))).toBe(err);
  });
});

describe('database error detection', () => {
  it('finds the SQLSTATE and the violated constraint', () => {
    expect(sqlStateOf(violation('k', '22021'))).toBe('22021');
    expect(sqlStateOf(new Error('x'))).toBeUndefined();
    expect(sqlStateOf({ code: 'username_taken' })).toBeUndefined();
    expect(uniqueViolationConstraint(violation('vaults_email_username_uq'))).toBe('vaults_email_username_uq');
    expect(uniqueViolationConstraint(violation(undefined))).toBe('');
    expect(uniqueViolationConstraint(violation('k', '40P01'))).toBeUndefined();
  });
});
