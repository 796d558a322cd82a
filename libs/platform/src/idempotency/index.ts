export * from './idempotency';
export * from './idempotency.interceptor';
export * from './idempotency-janitor';
export * from './idempotency-keys.migration';
export * from './idempotency-store';
export { afterRequestCommit } from './request-transaction';
