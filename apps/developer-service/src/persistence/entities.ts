import { ClosedIdentityEntity } from './closed-identities/closed-identity.entity';
import { RefreshTokenEntity, RefreshTokenFamilyEntity } from './refresh-tokens/refresh-token.entity';
import { ApplicationEntity } from './tenants/application.entity';
import { OrganisationUserEntity } from './tenants/organisation-user.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';

/** Every TypeORM entity of developer-service, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = [
  TenantEntity,
  ApplicationEntity,
  OrganisationUserEntity,
  SigningKeyEntity,
  ClosedIdentityEntity,
  RefreshTokenFamilyEntity,
  RefreshTokenEntity,
];
