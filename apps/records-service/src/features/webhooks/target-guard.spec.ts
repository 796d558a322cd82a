import type { LookupAddress } from 'node:dns';
import { jittered } from './webhook-dispatcher';
import { TargetGuard } from './target-guard';

/** The guard's lookup as a promise: the addresses a socket would connect to, or the refusal. */
const lookup = (guard: TargetGuard, host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    guard.lookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found as LookupAddress[]))),
  );

describe('TargetGuard', () => {
  it('refuses a connection to a name resolving to loopback (the check runs in the socket lookup)', async () => {
    await expect(lookup(new TargetGuard(''), 'localhost')).rejects.toThrow(/localhost resolves to .*loopback/);
  });

  it('lets a listed host name or address connect, and answers a single address when asked for one', async () => {
    const byName = await lookup(new TargetGuard('localhost'), 'localhost');
    expect(byName.length).toBeGreaterThan(0);
    const single = await new Promise<string>((resolve, reject) =>
      new TargetGuard('127.0.0.1').lookup('127.0.0.1', {}, (err, address) => (err ? reject(err) : resolve(address as string))),
    );
    expect(single).toBe('127.0.0.1');
  });

  it('allows CIDRs of both families and keeps refusing what they do not cover', async () => {
    const guard = new TargetGuard('10.1.0.0/16, fd00:1::/32');
    await expect(guard.check('https://10.1.200.3/x')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('http://10.1.200.3/x')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('https://[fd00:1::5]/x')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('https://10.2.0.1/x')).rejects.toThrow(/private/);
    await expect(guard.check('https://[fd00:2::5]/x')).rejects.toThrow(/private/);
  });

  it('accepts a public address over https only', async () => {
    const guard = new TargetGuard('');
    await expect(guard.check('https://93.184.215.14/x')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('http://93.184.215.14/x')).rejects.toThrow(/https/);
  });
});

describe('retry jitter', () => {
  it('stays within ±20 % of the scheduled delay', () => {
    expect(jittered(1000, 0)).toBe(800);
    expect(jittered(1000, 0.5)).toBe(1000);
    expect(jittered(1000, 0.999999)).toBe(1200);
  });
});
