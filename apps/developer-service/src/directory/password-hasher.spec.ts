import * as argon2 from 'argon2';
import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();
  beforeAll(() => hasher.onModuleInit());

  it('stores argon2id hashes that verify only the right value', async () => {
    const hash = await hasher.hash('s3cret-value');
    expect(hash.startsWith('$argon2id$')).toBe(true);
    await expect(hasher.verify(hash, 's3cret-value')).resolves.toBe(true);
    await expect(hasher.verify(hash, 'other-value')).resolves.toBe(false);
  });

  it('answers false for an unknown identity after comparable work', async () => {
    const hash = await hasher.hash('known-value');
    const median = async (fn: () => Promise<unknown>) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = process.hrtime.bigint();
        await fn();
        times.push(Number(process.hrtime.bigint() - t));
      }
      return times.sort((a, b) => a - b)[2];
    };
    await expect(hasher.verify(undefined, 'anything')).resolves.toBe(false);
    const known = await median(() => hasher.verify(hash, 'wrong-value'));
    const unknown = await median(() => hasher.verify(undefined, 'wrong-value'));
    expect(unknown).toBeGreaterThan(known * 0.3);
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
