import type { AppDescription } from '@vault/platform/bootstrap';

export const APP_DESCRIPTION: AppDescription = {
  title: 'Vault User API',
  description: 'User module of the vault platform.',
  publicHost: 'user-api.localhost:8443',
};
