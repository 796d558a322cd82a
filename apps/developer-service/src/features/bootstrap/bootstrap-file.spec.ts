import { BootstrapFileError, parseBootstrapFile } from './bootstrap-file';
import { demoBootstrap } from './demo-tenant';

const problemsOf = (input: unknown): string[] => {
  try {
    parseBootstrapFile(typeof input === 'string' ? input : JSON.stringify(input));
  } catch (e) {
    if (e instanceof BootstrapFileError) return e.problems;
    throw e;
  }
  throw new Error('the file was accepted');
};

const tenant = (over: object = {}) => ({
  id: 't1',
  name: 'Tenant one',
  applications: [
    {
      clientId: 'c1',
      clientSecret: 'secret-123',
      testMode: true,
      redirectUris: ['https://x.test/cb'],
    },
  ],
  users: [{ username: 'u@t1.test', password: 'password-1' }],
  ...over,
});

describe('parseBootstrapFile', () => {
  it('accepts the documented shape', () => {
    const file = parseBootstrapFile(JSON.stringify({ tenants: [tenant()] }));
    expect(file.tenants[0].applications?.[0]).toMatchObject({
      clientId: 'c1',
      testMode: true,
    });
    expect(file.tenants[0].users?.[0].username).toBe('u@t1.test');
  });

  it('refuses text that is not JSON or not an object', () => {
    expect(problemsOf('{tenants:')[0]).toMatch(/not valid JSON/);
    expect(problemsOf('[]')[0]).toMatch(/JSON object/);
    expect(problemsOf({})).toEqual([expect.stringMatching(/^tenants: /)]);
  });

  it('names each invalid field with its path, unknown fields included', () => {
    const problems = problemsOf({
      tenants: [
        tenant({
          id: 'has space',
          applications: [
            {
              clientId: 'c1',
              clientSecret: 'short',
              redirectUris: ['not a url'],
              extra: 1,
            },
          ],
          users: [{ username: ' padded ', password: 'password-1' }],
        }),
      ],
    });
    const fields = problems.map((p) => p.split(':')[0]);
    expect(fields).toEqual(
      expect.arrayContaining([
        'tenants.0.id',
        'tenants.0.applications.0.clientSecret',
        'tenants.0.applications.0.redirectUris',
        'tenants.0.applications.0.extra',
        'tenants.0.users.0.username',
      ]),
    );
  });

  it('refuses duplicates and test applications without a redirect URI', () => {
    const problems = problemsOf({
      tenants: [
        tenant(),
        tenant({
          users: [
            { username: 'A@t.test', password: 'password-1' },
            { username: 'a@t.test', password: 'password-2' },
          ],
          applications: [{ clientId: 'c1', clientSecret: 'secret-123', testMode: true }],
        }),
      ],
    });
    expect(problems).toEqual([
      'tenants.1.id: duplicate tenant id "t1"',
      'tenants.1.applications.0.clientId: duplicate client id "c1"',
      'tenants.1.applications.0.redirectUris: a test application needs at least one redirect URI',
      'tenants.1.users.1.username: duplicate username "a@t.test"',
    ]);
  });

  it('accepts the demo tenant', () => {
    expect(() => parseBootstrapFile(JSON.stringify(demoBootstrap()))).not.toThrow();
  });
});
