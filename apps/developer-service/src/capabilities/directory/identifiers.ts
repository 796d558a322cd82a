/** Tenant ids and client ids appear in URL paths: unreserved characters only. */
export const IDENTIFIER = /^[A-Za-z0-9._~-]{1,128}$/;

export const isIdentifier = (value: string): boolean => IDENTIFIER.test(value);
