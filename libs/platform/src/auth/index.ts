/** Access: route rules and their decorators, the deny-by-default guard, passport strategies, token revocation. */
export * from './access.decorators';
export * from './access.guard';
export * from './bearer-challenge';
export * from './revocation.service';
export * from './route-rules';
export { VAULT_JWT_STRATEGY } from './jwt.strategy';
export type { TokenRequest } from './vault-jwt';
