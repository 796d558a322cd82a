export * from './nats.module';
export * from './kv-watch';
