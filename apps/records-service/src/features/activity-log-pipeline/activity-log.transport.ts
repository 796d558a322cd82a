import { INestApplication, Logger } from '@nestjs/common';
import { connectJetStream, JetStreamServer, JetStreamServerOptions, NATS_CONNECTION } from '@vault/platform/events';
import { ActivityLogEnv } from './activity-log.env';
import { ACTIVITY_LOG_ROLES, ActivityLogRoles } from './activity-log.runner';
import { ActivityLogStreams } from './activity-log.streams';
import { ACTIVITY_LOG_CONSUMER } from './activity-log.writer';

/**
 * The JetStream transport settings of a records-service process: the vault events
 * namespace and stream, and the writer's consumer settings from ActivityLogEnv, or
 * `false` when this process does not write the log (ACTIVITY_LOG_WRITER=off).
 */
export function activityLogTransport(app: INestApplication): JetStreamServerOptions {
  const env = app.get(ActivityLogEnv);
  const streams = app.get(ActivityLogStreams);
  const writer = app.get<ActivityLogRoles>(ACTIVITY_LOG_ROLES).writer;
  return {
    connection: app.get(NATS_CONNECTION),
    namespace: streams.namespace,
    // The writer may start before any relay: either side creates the stream.
    streams: writer ? [streams.events] : [],
    deadLetterStreams: { replicas: env.EVENTS_STREAM_REPLICAS, duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS },
    consumers: {
      [ACTIVITY_LOG_CONSUMER.durable]: writer && {
        batchSize: env.ACTIVITY_LOG_BATCH_SIZE,
        ackWaitMs: env.ACTIVITY_LOG_ACK_WAIT_MS,
        maxDeliver: env.ACTIVITY_LOG_MAX_DELIVER,
        maxAckPending: env.ACTIVITY_LOG_MAX_ACK_PENDING,
      },
    },
    logger: new Logger('JetStream'),
  };
}

/**
 * The writer worker process (`main.js activity-log-writer`): connects the JetStream
 * transport, whose only handler there is the writer. The consumer starts in the
 * background (retrying while NATS is unreachable) and drains when the app closes.
 */
export function startActivityLogWriter(app: INestApplication): Promise<JetStreamServer> {
  return connectJetStream(app, activityLogTransport(app));
}
