import { INestApplication } from '@nestjs/common';
import { connectJetStream, JetStreamServer } from '@vault/platform/events';
import { ActivityLogStreams } from '../features/activity-log-pipeline/activity-log.streams';
import { activityLogTransport } from '../features/activity-log-pipeline/activity-log.transport';
import { changeFeedConsumers } from '../features/change-feed/change-feed.writer';
import { textExtractionConsumers } from '../features/search/text-extraction.consumer';
import { webhookConsumers } from '../features/webhooks/webhook-fanout';

/**
 * The one JetStream transport of the service (a hybrid app): it runs every
 * `@EventPattern` handler with `jetStreamConsumer(...)` options in the app's modules,
 * each with its decorator's options unless `consumers` holds settings for its durable
 * (from the env; `false` leaves it to other processes). A consumer with such settings
 * adds them to `consumers` here, beside the activity-log writer's. Every consumer reads
 * the vault events stream, so the transport creates it when it is not there yet, as the
 * outbox relay does: a process without the relay (ACTIVITY_LOG_RELAY=off, the relay in
 * another Deployment) starts its consumers at once rather than retrying until a relay ran.
 */
export function startJetStreamConsumers(app: INestApplication): Promise<JetStreamServer> {
  const options = activityLogTransport(app);
  return connectJetStream(app, {
    ...options,
    streams: [app.get(ActivityLogStreams).events],
    consumers: {
      ...options.consumers,
      ...webhookConsumers(app),
      ...changeFeedConsumers(app),
      ...textExtractionConsumers(app),
    },
  });
}
