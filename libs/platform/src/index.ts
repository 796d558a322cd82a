/**
 * Everything of the platform in one module, kept while the apps move to the entry points
 * (`@vault/platform/<entry>`, one per folder here); new code imports an entry point.
 */
export * from './config';
export * from './errors';
export * from './http';
export * from './auth';
export * from './events';
export * from './persistence';
export * from './idempotency';
export * from './observability';
export * from './health';
export * from './runtime';
export * from './bootstrap';
