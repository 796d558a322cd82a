import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { EventStreams } from '../src/capabilities/events/event-streams';
import { CHANGE_FEED_CONSUMER } from '../src/features/change-feed/change-feed.writer';
import { ChangeFeedEnv } from '../src/features/change-feed/change-feed.env';
import { TEXT_EXTRACTION_CONSUMER } from '../src/features/search/text-extraction.consumer';
import { WEBHOOK_DURABLE } from '../src/features/webhooks/fanout-horizon';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { RecordsTestApp } from './support';

/**
 * An API process whose outbox relay and log writer run elsewhere (both off here, as in a
 * Deployment of its own) and that starts before any relay ran: its consumers still start.
 */
describe("the service's JetStream consumers without a relay in the process", () => {
  let nats: TestNatsServer;
  let t: RecordsTestApp;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    t = await RecordsTestApp.start('records_consumers_alone', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('alone'),
      ACTIVITY_LOG_RELAY: 'off',
      ACTIVITY_LOG_WRITER: 'off',
      WEBHOOK_DISPATCHER: 'inline',
    });
  });
  afterAll(async () => {
    await t?.stop();
    await nats?.dispose();
  });

  it('creates the vault events stream and declares every consumer at once, none retrying for a stream', async () => {
    const jsm = await jetstreamManager(t.app.get<NatsConnection>(NATS_CONNECTION));
    const stream = new EventStreams(t.app.get(ChangeFeedEnv)).events.name;
    await expect(jsm.streams.info(stream)).rejects.toThrow(/stream not found/);

    await startJetStreamConsumers(t.app);
    const durables = async () => (await jsm.consumers.list(stream).next()).map((c) => c.name).sort();
    // the consumers start in the background: a first attempt, not the one-second retries
    await waitFor(async () => (await durables().catch(() => [])).length === 3, 5_000, 'three consumers');
    expect(await durables()).toEqual([CHANGE_FEED_CONSUMER.durable, TEXT_EXTRACTION_CONSUMER.durable, WEBHOOK_DURABLE].sort());
    expect((await jsm.streams.info(stream)).config.subjects.length).toBeGreaterThan(0);
  });
});
