/** Tenants, applications and users the platform e2e suite boots the developer module with. */
export const E2E_BOOTSTRAP = {
  tenants: [
    {
      id: 'alpha',
      name: 'Alpha Org',
      applications: [
        {
          clientId: 'alpha-test',
          clientSecret: 'alpha-test-secret',
          testMode: true,
          redirectUris: ['https://app.alpha.example/callback'],
        },
        {
          clientId: 'alpha-prod',
          clientSecret: 'alpha-prod-secret',
          testMode: false,
          redirectUris: ['https://app.alpha.example/callback'],
        },
        // the browser suite's web client: its page's origin is added at start (an ephemeral port)
        {
          clientId: 'alpha-web',
          clientSecret: 'alpha-web-secret',
          testMode: false,
          allowedOrigins: ['https://app.alpha.example'] as string[],
        },
      ],
      users: [
        { username: 'ann@alpha.example', password: 'ann-password-1' },
        { username: 'bob@alpha.example', password: 'bob-password-1' },
        // the gateway-hardening suite's own account (vault quotas are per account)
        { username: 'hal@alpha.example', password: 'hal-password-1' },
        // the conditional-requests suite's own account
        { username: 'eve@alpha.example', password: 'eve-password-1' },
        // the resumable-uploads suite's own account
        { username: 'tia@alpha.example', password: 'tia-password-1' },
        // the Idempotency-Key suite's own accounts
        { username: 'ida@alpha.example', password: 'ida-password-1' },
        { username: 'ivo@alpha.example', password: 'ivo-password-1' },
        // the browser suite's own account
        { username: 'web@alpha.example', password: 'web-password-1' },
        // the sharing suite's own accounts
        { username: 'sam@alpha.example', password: 'sam-password-1' },
        { username: 'sue@alpha.example', password: 'sue-password-1' },
        // the SDK suites' own accounts, and the CLI suite's
        { username: 'sid@alpha.example', password: 'sid-password-1' },
        { username: 'sol@alpha.example', password: 'sol-password-1' },
        { username: 'cli@alpha.example', password: 'cli-password-1' },
        // the trash suite's own accounts, and its compliance officer (legal holds)
        { username: 'tom@alpha.example', password: 'tom-password-1' },
        { username: 'tess@alpha.example', password: 'tess-password-1' },
        { username: 'vic@alpha.example', password: 'vic-password-1' },
        { username: 'lex@alpha.example', password: 'lex-password-1', roles: ['compliance'] },
        // the OpenAPI suite's own account (GET /accounts/me before and after it exists)
        { username: 'oas@alpha.example', password: 'oas-password-1' },
        // the file-versions and content-search suites' own vault owners (the free plan's
        // three owned vaults are taken by the suites that use ann)
        { username: 'fay@alpha.example', password: 'fay-password-1' },
        { username: 'sia@alpha.example', password: 'sia-password-1' },
        // the vault-export suite's own accounts (owner, editor, viewer)
        { username: 'kai@alpha.example', password: 'kai-password-1' },
        { username: 'ked@alpha.example', password: 'ked-password-1' },
        { username: 'kim@alpha.example', password: 'kim-password-1' },
        // the records-flow suite's own vault owner: it creates two vaults, and the suites that
        // use ann could otherwise take the free plan's three first, depending on their order
        { username: 'rex@alpha.example', password: 'rex-password-1' },
      ],
    },
    {
      id: 'beta',
      name: 'Beta Org',
      applications: [
        {
          clientId: 'beta-app',
          clientSecret: 'beta-secret',
          testMode: false,
          redirectUris: ['https://app.beta.example/callback'],
        },
      ],
      users: [{ username: 'cy@beta.example', password: 'cy-password-1' }],
    },
    {
      // The fuzz suite's own tenants: whatever it creates or removes stays away from the other suites.
      id: 'gamma',
      name: 'Gamma Org',
      applications: [
        {
          clientId: 'gamma-app',
          clientSecret: 'gamma-secret',
          testMode: false,
          redirectUris: ['https://app.gamma.example/callback'],
        },
      ],
      users: [
        { username: 'gus@gamma.example', password: 'gus-password-1' },
        { username: 'gil@gamma.example', password: 'gil-password-1' },
      ],
    },
    {
      id: 'delta',
      name: 'Delta Org',
      applications: [
        {
          clientId: 'delta-app',
          clientSecret: 'delta-secret',
          testMode: false,
          redirectUris: ['https://app.delta.example/callback'],
        },
      ],
      users: [{ username: 'dee@delta.example', password: 'dee-password-1' }],
    },
  ],
};
