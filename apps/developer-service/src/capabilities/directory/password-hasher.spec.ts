import * as argon2 from 'argon2';
import { PasswordHasher } from './password-hasher';

// the real argon2, its verify watched (every call still runs the real verification)
jest.mock('argon2', () => {
  const actual = jest.requireActual<typeof import('argon2')>('argon2');
  return { ...actual, verify: jest.fn(actual.verify) };
});

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();
  beforeAll(() => hasher.onModuleInit());

  it('stores argon2id hashes that verify only the right value', async () => {
    const hash = await hasher.hash('s3cret-value');
    expect(hash.startsWith('$argon2id$')).toBe(true);
    await expect(hasher.verify(hash, 's3cret-value')).resolves.toBe(true);
    await expect(hasher.verify(hash, 'other-value')).resolves.toBe(false);
  });

  it('answers false for an unknown identity after a verification of the same cost as a real one', async () => {
    const verify = jest.mocked(argon2.verify);
    verify.mockClear();
    await expect(hasher.verify(undefined, 'anything')).resolves.toBe(false);
    expect(verify).toHaveBeenCalledTimes(1);
    const dummy = verify.mock.calls[0][0];
    const real = await hasher.hash('known-value');
    // $argon2id$v=19$m=…,t=…,p=…$salt$hash: same algorithm, version and cost, so the same work
    expect(dummy.split('$').slice(0, 4)).toEqual(real.split('$').slice(0, 4));
    // and the dummy is not a hash of what the caller sent
    await expect(hasher.verify(undefined, 'known-value')).resolves.toBe(false);
  });

  it('marks a hash stale when the value changed or the parameters are outdated', async () => {
    const hash = await hasher.hash('value-1');
    await expect(hasher.isStale(hash, 'value-1')).resolves.toBe(false);
    await expect(hasher.isStale(hash, 'value-2')).resolves.toBe(true);
    const weak = await argon2.hash('value-1', {
      type: argon2.argon2id,
      memoryCost: 8192,
      timeCost: 1,
      parallelism: 1,
    });
    await expect(hasher.isStale(weak, 'value-1')).resolves.toBe(true);
  });
});
