/** Events: the NATS connection, JetStream streams and durable consumers, the transactional outbox. */
export * from './nats';
export * from './jetstream';
export * from './outbox';
