import { plainToInstance } from 'class-transformer';
import { BootstrapFile } from './bootstrap-file.dto';

/** Credentials of the demo tenant created outside production when no bootstrap file is given. */
export const DEMO_CREDENTIALS = {
  tenantId: 'demo',
  clientId: 'demo-app',
  clientSecret: 'demo-secret',
  username: 'demo@vault.local',
  password: 'demo-password',
  /** A second user of the demo organisation, to share vaults with. */
  guestUsername: 'guest@vault.local',
  guestPassword: 'guest-password',
  redirectUri: 'https://localhost:8443/callback',
} as const;

export function demoBootstrap(): BootstrapFile {
  const d = DEMO_CREDENTIALS;
  return plainToInstance(BootstrapFile, {
    tenants: [
      {
        id: d.tenantId,
        name: 'Demo organisation',
        applications: [
          {
            clientId: d.clientId,
            clientSecret: d.clientSecret,
            testMode: true,
            redirectUris: [d.redirectUri],
          },
        ],
        users: [
          { username: d.username, password: d.password },
          { username: d.guestUsername, password: d.guestPassword },
        ],
      },
    ],
  });
}
