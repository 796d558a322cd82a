import { COMMON_ERRORS, MAX_CONTACT_ENTRIES, USER_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const emailExists = () => ProblemException.of(USER_ERRORS.emailExists, 'The account already has this email address.');

export const phoneExists = () => ProblemException.of(USER_ERRORS.phoneExists, 'The account already has this phone number.');

/** `what`: 'email addresses' or 'phone numbers'. */
export const tooManyEntries = (what: string) =>
  ProblemException.of(USER_ERRORS.tooManyEntries, `An account holds at most ${MAX_CONTACT_ENTRIES} ${what}.`);

/** `what`: 'email address' or 'phone number'. */
export const entryNotFound = (what: string) => ProblemException.of(COMMON_ERRORS.notFound, `The account has no such ${what}.`);
