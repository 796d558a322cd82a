import type { AppDescription } from '@vault/platform/bootstrap';
import { RECORDS_WEBHOOKS } from './webhooks.openapi';

export const APP_DESCRIPTION: AppDescription = {
  title: 'Vault Records API',
  description: 'Records module of the vault platform.',
  publicHost: 'records-api.localhost:8443',
  webhooks: RECORDS_WEBHOOKS,
};
