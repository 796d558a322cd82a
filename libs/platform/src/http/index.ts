/** HTTP plumbing of the services: the Express adapter, request ids, request bodies, conditional requests, ranges. */
export * from './express-adapter';
export * from './request-id.middleware';
export * from './request-body';
export * from './conditional-requests';
export * from './offset-page';
export * from './http-range';
