import { codesOf, ErrorTable } from './entry';

/** Codes of the developer module (token issuance, test tokens). */
export const DEVELOPER_ERRORS = {
  invalidCredentials: {
    code: 'invalid_credentials',
    status: 401,
    meaning: 'Token issuance refused: the client or user credentials are not valid (the body never says which part).',
  },
  accountDeleted: {
    code: 'account_deleted',
    status: 403,
    meaning:
      'Token issuance refused: the identity deleted its account in this tenant; it can no longer sign in (or get test tokens).',
  },
  noRedirectUri: {
    code: 'no_redirect_uri',
    status: 409,
    meaning: 'A test token was asked as a redirect but the application has no redirect URI.',
  },
} as const satisfies ErrorTable;

export const DEVELOPER_ERROR_CODES = codesOf(DEVELOPER_ERRORS);
