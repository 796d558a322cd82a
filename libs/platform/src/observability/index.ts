export * from './metrics';
export * from './jwks-metrics';
export * from './http-metrics';
export * from './access-log';
export * from './metrics-server';
export * from './tracing';
export * from './trace-context';
