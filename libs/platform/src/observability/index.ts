export * from './metrics';
export * from './http-metrics';
export * from './metrics-server';
export * from './tracing';
export * from './trace-context';
