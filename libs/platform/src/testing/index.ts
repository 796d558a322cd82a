export * from './database';
export * from './identity-provider';
export * from './test-app';
export * from './nats-server';
export * from './raw-request';
export * from './service-process';
export * from './otlp-receiver';
export * from './test-clock';
