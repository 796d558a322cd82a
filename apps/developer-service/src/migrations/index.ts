import { DeveloperSchema1763800000000 } from './1763800000000-developer-schema';
import { SigningKeyRotation1763800000100 } from './1763800000100-signing-key-rotation';
import { ClosedIdentities1763800000200 } from './1763800000200-closed-identities';
import { RefreshTokens1763800000300 } from './1763800000300-refresh-tokens';
import { ApplicationOrigins1763800000400 } from './1763800000400-application-origins';
import { UserRoles1764100000500 } from './1764100000500-user-roles';
import { FamilySignInTime1764700000000 } from './1764700000000-family-sign-in-time';

/** Migrations of developer-service in order, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [
  DeveloperSchema1763800000000,
  SigningKeyRotation1763800000100,
  ClosedIdentities1763800000200,
  RefreshTokens1763800000300,
  ApplicationOrigins1763800000400,
  UserRoles1764100000500,
  FamilySignInTime1764700000000,
];
