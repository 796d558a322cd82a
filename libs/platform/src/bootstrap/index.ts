/** Starting a process: PlatformModule, runService and runWorker, the app logger, instrumentation. */
export * from './platform.module';
export * from './configure-app';
export * from './run-service';
export * from './run-worker';
export * from './app-logger';
export * from './instrument-app';
