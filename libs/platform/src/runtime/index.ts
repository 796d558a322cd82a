/** Process runtime: periodic tasks, the V8 heap growing factor. */
export * from './heap-growth';
export * from './periodic-task';
