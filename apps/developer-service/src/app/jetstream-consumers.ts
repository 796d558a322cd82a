import { INestApplication, Logger } from '@nestjs/common';
import { connectJetStream, EventNamespace, JetStreamServer, NATS_CONNECTION } from '@vault/platform/events';
import { DeveloperEnv } from '../config/developer.env';

/**
 * Connects the service's JetStream transport (a hybrid app), whose one handler keeps
 * the closed identities. It starts in the background and retries while the account
 * events stream cannot be reached (the user module creates it).
 */
export function startJetStreamConsumers(app: INestApplication): Promise<JetStreamServer> {
  return connectJetStream(app, {
    connection: app.get(NATS_CONNECTION),
    namespace: new EventNamespace(app.get(DeveloperEnv).EVENTS_NAMESPACE),
    logger: new Logger('JetStream'),
  });
}
