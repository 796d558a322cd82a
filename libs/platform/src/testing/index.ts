export * from './database';
export * from './identity-provider';
export * from './test-app';
