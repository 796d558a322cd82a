import { UserSchema1763800000000 } from './1763800000000-user-schema';

/** Migrations of user-service in order, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [UserSchema1763800000000];
