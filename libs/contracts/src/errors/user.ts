import { codesOf, ErrorTable } from './entry';

/** Codes of the user module (accounts, contacts, multi-factor codes, invitations). */
export const USER_ERRORS = {
  accountExists: {
    code: 'account_exists',
    status: 409,
    meaning: 'An account already exists for this identity in the tenant.',
  },
  usernameTaken: {
    code: 'username_taken',
    status: 409,
    meaning: 'The username is already used by another account of the tenant.',
  },
  emailExists: {
    code: 'email_exists',
    status: 409,
    meaning: 'The account already has this email address.',
  },
  phoneExists: {
    code: 'phone_exists',
    status: 409,
    meaning: 'The account already has this phone number.',
  },
  tooManyEntries: {
    code: 'too_many_entries',
    status: 409,
    meaning: 'The account already holds the most email addresses or phone numbers allowed.',
  },
  noMfaDestination: {
    code: 'no_mfa_destination',
    status: 409,
    meaning: 'A code was asked for a channel the account has no address for (no email, no mobile number).',
  },
  invalidMfaCode: {
    code: 'invalid_mfa_code',
    status: 400,
    meaning: 'The multi-factor code is wrong, expired, already used or out of tries.',
  },
  invalidInvitationCode: {
    code: 'invalid_invitation_code',
    status: 400,
    meaning: 'The invitation code given at registration is unknown, expired or already used.',
  },
} as const satisfies ErrorTable;

export const USER_ERROR_CODES = codesOf(USER_ERRORS);
