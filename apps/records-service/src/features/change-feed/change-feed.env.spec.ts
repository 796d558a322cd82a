import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { ChangeFeedEnv } from './change-feed.env';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('ChangeFeedEnv, stream caps', () => {
  it('caps 10 streams per caller and 1000 per tenant, Retry-After 30 s, by default', () => {
    expect(loadEnv(ChangeFeedEnv, base)).toMatchObject({
      CHANGE_FEED_MAX_STREAMS_PER_CALLER: 10,
      CHANGE_FEED_MAX_STREAMS_PER_TENANT: 1000,
      CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS: 30,
    });
  });

  it('takes other caps within bounds', () => {
    const env = loadEnv(ChangeFeedEnv, {
      ...base,
      CHANGE_FEED_MAX_STREAMS_PER_CALLER: '2',
      CHANGE_FEED_MAX_STREAMS_PER_TENANT: '50',
      CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS: '5',
    });
    expect([
      env.CHANGE_FEED_MAX_STREAMS_PER_CALLER,
      env.CHANGE_FEED_MAX_STREAMS_PER_TENANT,
      env.CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS,
    ]).toEqual([2, 50, 5]);
  });

  it.each([
    ['CHANGE_FEED_MAX_STREAMS_PER_CALLER', '0'],
    ['CHANGE_FEED_MAX_STREAMS_PER_CALLER', '1001'],
    ['CHANGE_FEED_MAX_STREAMS_PER_CALLER', 'many'],
    ['CHANGE_FEED_MAX_STREAMS_PER_TENANT', '0'],
    ['CHANGE_FEED_MAX_STREAMS_PER_TENANT', '100001'],
    ['CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS', '0'],
    ['CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS', '3601'],
  ])('refuses %s=%s at boot', (name, value) => {
    expect(() => loadEnv(ChangeFeedEnv, { ...base, [name]: value })).toThrow(EnvValidationError);
    expect(() => loadEnv(ChangeFeedEnv, { ...base, [name]: value })).toThrow(name);
  });
});
