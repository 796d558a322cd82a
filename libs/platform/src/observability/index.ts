export * from './metrics';
export * from './http-metrics';
export * from './metrics-server';
export * from './instrument-app';
export * from './tracing';
export * from './trace-context';
