/** Tenants, applications and users the platform e2e suite boots the developer module with. */
export const E2E_BOOTSTRAP = {
  tenants: [
    {
      id: 'alpha',
      name: 'Alpha Org',
      applications: [
        { clientId: 'alpha-test', clientSecret: 'alpha-test-secret', testMode: true, redirectUris: ['https://app.alpha.example/callback'] },
        { clientId: 'alpha-prod', clientSecret: 'alpha-prod-secret', testMode: false, redirectUris: ['https://app.alpha.example/callback'] },
      ],
      users: [
        { username: 'ann@alpha.example', password: 'ann-password-1' },
        { username: 'bob@alpha.example', password: 'bob-password-1' },
      ],
    },
    {
      id: 'beta',
      name: 'Beta Org',
      applications: [
        { clientId: 'beta-app', clientSecret: 'beta-secret', testMode: false, redirectUris: ['https://app.beta.example/callback'] },
      ],
      users: [{ username: 'cy@beta.example', password: 'cy-password-1' }],
    },
  ],
};
