import type { AppDescription } from '@vault/platform';

export const APP_DESCRIPTION: AppDescription = {
  title: 'Vault User API',
  description: 'User module of the vault platform.',
  publicHost: 'user-api.localhost:8443',
};
