export * from './json-body';
export * from './web-url';
