export * from './namespace';
export * from './streams';
export * from './durable-consumer';
export * from './jetstream-consumer';
export * from './jetstream.server';
export * from './connect-jetstream';
export * from './handler-errors';
