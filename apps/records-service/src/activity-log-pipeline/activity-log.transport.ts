import { INestApplication, Logger } from '@nestjs/common';
import { connectJetStream, JetStreamServer, NATS_CONNECTION } from '@vault/platform';
import { ActivityLogEnv } from './activity-log.env';
import { ACTIVITY_LOG_ROLES, ActivityLogRoles } from './activity-log.runner';
import { ActivityLogStreams } from './activity-log.streams';
import { ACTIVITY_LOG_CONSUMER } from './activity-log.writer';

/**
 * Connects the JetStream transport to `app` (the service, or a worker process) when it
 * runs the activity-log writer, with the writer's settings from ActivityLogEnv. The
 * consumer starts in the background (retrying while NATS is unreachable) and drains
 * when the app closes. Resolves with the transport, or undefined when the writer is off.
 */
export async function startActivityLogWriter(app: INestApplication): Promise<JetStreamServer | undefined> {
  if (!app.get<ActivityLogRoles>(ACTIVITY_LOG_ROLES).writer) return undefined;
  const env = app.get(ActivityLogEnv);
  const streams = app.get(ActivityLogStreams);
  return connectJetStream(app, {
    connection: app.get(NATS_CONNECTION),
    namespace: streams.namespace,
    // The writer may start before any relay: either side creates the stream.
    streams: [streams.events],
    deadLetterStreams: { replicas: env.EVENTS_STREAM_REPLICAS, duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS },
    consumers: {
      [ACTIVITY_LOG_CONSUMER.durable]: {
        batchSize: env.ACTIVITY_LOG_BATCH_SIZE,
        ackWaitMs: env.ACTIVITY_LOG_ACK_WAIT_MS,
        maxDeliver: env.ACTIVITY_LOG_MAX_DELIVER,
        maxAckPending: env.ACTIVITY_LOG_MAX_ACK_PENDING,
      },
    },
    logger: new Logger('ActivityLogWriter'),
  });
}
