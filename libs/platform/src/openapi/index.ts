/**
 * The OpenAPI documents of the platform: decorators a route documents itself with, the
 * module document builder (served at /api/v1/openapi.json, written by `npm run
 * openapi:write`), and the merge into the one document of the API. See
 * docs/openapi.md.
 */
export * from './decorators';
export * from './created';
export * from './headers';
export * from './deprecation';
export * from './problem-schema';
export * from './document';
export * from './normalize';
export * from './merge';
