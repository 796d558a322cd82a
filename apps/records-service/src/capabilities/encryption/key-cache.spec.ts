import { KeyCache } from './key-cache';

describe('KeyCache', () => {
  let now = 0;
  const clock = () => now;
  const key = (n: number) => Buffer.alloc(32, n);

  beforeEach(() => {
    now = 1_000;
  });

  it('keeps a key for its time after the last use, then loads it again', async () => {
    const cache = new KeyCache(10_000, 10, clock);
    const load = jest.fn(async () => key(1));
    await cache.get('v', load);
    now += 9_000;
    await cache.get('v', load);
    now += 9_000; // 18 s after the first use, 9 s after the last
    await cache.get('v', load);
    expect(load).toHaveBeenCalledTimes(1);
    now += 10_001;
    await cache.get('v', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('holds at most its bound, dropping the least recently used', async () => {
    const cache = new KeyCache(60_000, 2, clock);
    const loads: string[] = [];
    const get = (id: string) => cache.get(id, async () => (loads.push(id), key(id.length)));
    await get('a');
    await get('b');
    await get('a');
    await get('c'); // evicts b, the least recently used
    await get('a');
    await get('b');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('shares one load among concurrent misses and keeps no failure', async () => {
    const cache = new KeyCache(60_000, 5, clock);
    let calls = 0;
    const failing = () => (calls++, Promise.reject(new Error('kms down')));
    await expect(Promise.all([cache.get('v', failing), cache.get('v', failing)])).rejects.toThrow('kms down');
    expect(calls).toBe(1);
    expect(await cache.get('v', async () => key(7))).toEqual(key(7));
  });

  it('keeps nothing with a time of 0, and hands out copies that eviction cannot zero', async () => {
    const none = new KeyCache(0, 5, clock);
    await none.get('v', async () => key(1));
    expect(none.size).toBe(0);
    const cache = new KeyCache(60_000, 5, clock);
    await cache.get('v', async () => key(2));
    const held = await cache.get('v', async () => key(3));
    cache.evict('v');
    expect(held).toEqual(key(2));
  });
});
