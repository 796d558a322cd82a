import { ClosedIdentityEntity } from '../closed-identities/closed-identity.entity';
import { ApplicationEntity } from '../directory/application.entity';
import { OrganisationUserEntity } from '../directory/organisation-user.entity';
import { TenantEntity } from '../directory/tenant.entity';
import { SigningKeyEntity } from '../keys/signing-key.entity';

/** Every TypeORM entity of developer-service, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = [
  TenantEntity,
  ApplicationEntity,
  OrganisationUserEntity,
  SigningKeyEntity,
  ClosedIdentityEntity,
];
