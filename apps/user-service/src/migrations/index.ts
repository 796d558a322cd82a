import { IdempotencyKeys1763900000000 } from '@vault/platform/idempotency';
import { UserSchema1763800000000 } from './1763800000000-user-schema';
import { AccountVersion1763800000700 } from './1763800000700-account-version';
import { AccountOutbox1763900000100 } from './1763900000100-account-outbox';
import { AccountDeletion1763900000200 } from './1763900000200-account-deletion';
import { AccountOutboxTrace1763900000300 } from './1763900000300-outbox-trace';

/** Migrations of user-service in order, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [
  UserSchema1763800000000,
  AccountVersion1763800000700,
  IdempotencyKeys1763900000000,
  AccountOutbox1763900000100,
  AccountDeletion1763900000200,
  AccountOutboxTrace1763900000300,
];
