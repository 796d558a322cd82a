import type { AppDescription } from '@vault/platform/bootstrap';

export const APP_DESCRIPTION: AppDescription = {
  title: 'Vault Developer API',
  description:
    'Developer module of the vault platform: issues ES256 access tokens and rotating refresh tokens ' +
    'to organisation users of a tenant through its client applications (the contract route POST .../auth ' +
    'and the OAuth 2.0 token endpoint POST .../oauth/token, described per application by RFC 8414 metadata), ' +
    'test tokens for test-mode applications, and ' +
    'publishes the verification keys at /api/v1/.well-known/jwks.json. Every credential failure ' +
    'answers the same 401 (code invalid_credentials); repeated failures answer 429 with Retry-After.',
  publicHost: 'developer-api.localhost:8443',
};
