export * from './idempotency';
export * from './idempotency.interceptor';
export * from './idempotency-janitor';
export * from './idempotency-keys.migration';
export * from './idempotency-store';
export * from './stored-answer-codec';
export { afterRequestCommit } from './request-transaction';
