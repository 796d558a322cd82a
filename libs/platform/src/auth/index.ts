/** Access: route rules and their decorators, the deny-by-default guard, token revocation. */
export * from './access.decorators';
export * from './access.guard';
export * from './bearer-challenge';
export * from './revocation.service';
export * from './route-rules';
