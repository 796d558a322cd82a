import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { ActivityLogEnv } from './activity-log.env';
import { ActivityLogStreams } from './activity-log.streams';
import { ACTIVITY_LOG_CONSUMER } from './activity-log.writer';

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
    expect([streams.events.name, streams.events.subjects, streams.deadLetterStream]).toEqual([
      'VAULT_EVENTS',
      ['vault.>'],
      'VAULT_EVENTS_DLQ',
    ]);
    // The names deployed dead-letter streams already carry (the transport adds the namespace).
    expect(ACTIVITY_LOG_CONSUMER).toMatchObject({
      durable: 'activity_log_writer',
      stream: 'VAULT_EVENTS',
      batch: true,
      deadLetter: {
        stream: 'VAULT_EVENTS_DLQ',
        subjects: ['deadletter.vault.>'],
        subject: 'deadletter.vault.activity_log_writer',
      },
    });
  });

  it('namespaces streams and subjects', () => {
    const streams = new ActivityLogStreams(loadEnv(ActivityLogEnv, { ...base, EVENTS_NAMESPACE: 'ci7' }));
    expect([streams.events.name, streams.events.subjects, streams.deadLetterStream]).toEqual([
      'ci7_VAULT_EVENTS',
      ['ci7.vault.>'],
      'ci7_VAULT_EVENTS_DLQ',
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
