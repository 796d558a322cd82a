import { Module } from '@nestjs/common';
import { AuthThrottleStore } from './auth-throttle/auth-throttle.store';
import { ClosedIdentityRepository } from './closed-identities/closed-identity.repository';
import { RefreshTokenRepository } from './refresh-tokens/refresh-token.repository';
import { SigningKeyRepository } from './signing-keys/signing-key.repository';
import { ApplicationRepository } from './tenants/application.repository';
import { OrganisationUserRepository } from './tenants/organisation-user.repository';
import { TenantRepository } from './tenants/tenant.repository';

const PROVIDERS = [
  TenantRepository,
  ApplicationRepository,
  OrganisationUserRepository,
  SigningKeyRepository,
  ClosedIdentityRepository,
  RefreshTokenRepository,
  AuthThrottleStore,
];

/**
 * The developer-service persistence seam: one repository per aggregate (queries and
 * locks, nothing else) and the sign-in throttle's store. Services above it hold the
 * rules and see no DataSource.
 */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class PersistenceModule {}
