/** HTTP plumbing of the services: request ids, request bodies, conditional requests, ranges. */
export * from './request-id.middleware';
export * from './request-body';
export * from './conditional-requests';
export * from './offset-page';
export * from './http-range';
