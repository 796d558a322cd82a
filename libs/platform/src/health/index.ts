/** Health and shutdown: /health/live and /health/ready, the lifecycle state. */
export * from './shutdown-state';
export * from './health.module';
