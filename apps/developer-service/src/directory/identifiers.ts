/** Tenant ids and client ids appear in URL paths: unreserved characters only. */
export const IDENTIFIER = /^[A-Za-z0-9._~-]{1,128}$/;

export const isIdentifier = (value: string): boolean => IDENTIFIER.test(value);

/** PostgreSQL text cannot hold NUL characters, so a username with one matches nobody. */
export const isStorableText = (value: string): boolean => !value.includes('\0');
