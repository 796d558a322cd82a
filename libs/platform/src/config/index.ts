/** Validated settings: the env classes every app extends, their decorators and loadEnv; URL redaction. */
export * from './env';
export * from './url-credentials';
