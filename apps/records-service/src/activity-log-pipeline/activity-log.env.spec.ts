import { EnvValidationError, loadEnv } from '@vault/platform';
import { ActivityLogEnv } from './activity-log.env';
import { ActivityLogStreams } from './activity-log.streams';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('ActivityLogEnv', () => {
  it('defaults to the relay and writer inline, no namespace', () => {
    const env = loadEnv(ActivityLogEnv, base);
    expect(env).toMatchObject({
      ACTIVITY_LOG_RELAY: 'inline',
      ACTIVITY_LOG_WRITER: 'inline',
      EVENTS_NAMESPACE: '',
      EVENTS_STREAM_REPLICAS: 1,
      ACTIVITY_LOG_MAX_DELIVER: 10,
    });
    const streams = new ActivityLogStreams(env);
    expect([streams.events.name, streams.events.subjects, streams.deadLetter.stream.name, streams.deadLetter.subject]).toEqual([
      'VAULT_EVENTS',
      ['vault.>'],
      'VAULT_EVENTS_DLQ',
      'deadletter.vault.activity_log_writer',
    ]);
  });

  it('namespaces streams and subjects', () => {
    const streams = new ActivityLogStreams(loadEnv(ActivityLogEnv, { ...base, EVENTS_NAMESPACE: 'ci7' }));
    expect([streams.events.name, streams.events.subjects, streams.consumer.filterSubject, streams.deadLetter.subject]).toEqual([
      'ci7_VAULT_EVENTS',
      ['ci7.vault.>'],
      'ci7.vault.>',
      'ci7.deadletter.vault.activity_log_writer',
    ]);
  });

  it.each([
    ['ACTIVITY_LOG_WRITER', 'sometimes'],
    ['ACTIVITY_LOG_RELAY', 'yes'],
    ['EVENTS_NAMESPACE', 'a.b'],
    ['EVENTS_STREAM_REPLICAS', '0'],
    ['ACTIVITY_LOG_ACK_WAIT_MS', '10'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadEnv(ActivityLogEnv, { ...base, [name]: value })).toThrow(EnvValidationError);
    expect(() => loadEnv(ActivityLogEnv, { ...base, [name]: value })).toThrow(new RegExp(name));
  });
});
