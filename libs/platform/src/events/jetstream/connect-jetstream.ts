import type { INestApplication } from '@nestjs/common';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NestMicroservice } from '@nestjs/microservices/nest-microservice';
import { JetStreamHandlerErrorFilter } from './handler-errors';
import { JetStreamServer, JetStreamServerOptions } from './jetstream.server';

/**
 * Connects the JetStream transport to `app` (a hybrid app: HTTP or worker) and starts
 * its consumers in the background; they stop when the app closes, before the NATS
 * connection and the database are closed.
 */
export async function connectJetStream(app: INestApplication, options: JetStreamServerOptions): Promise<JetStreamServer> {
  const server = new JetStreamServer(options);
  // Filters are bound when the listeners are registered: the handlers' errors must
  // reach the transport as they are (dead-letter reason), so the filter comes first.
  const microservice = app.connectMicroservice<MicroserviceOptions>(
    { strategy: server },
    { deferInitialization: true },
  ) as NestMicroservice;
  microservice.useGlobalFilters(new JetStreamHandlerErrorFilter());
  // What connectMicroservice does without deferInitialization (the app runs the init hooks).
  microservice.registerListeners();
  microservice.setIsInitialized(true);
  microservice.setIsInitHookCalled(true);
  await microservice.listen();
  return server;
}
