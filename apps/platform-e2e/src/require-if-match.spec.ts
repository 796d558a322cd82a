import { call } from '../support/client';
import { E2ePlatform, startE2ePlatform, stopE2ePlatform } from '../support/e2e-platform';

/**
 * REQUIRE_IF_MATCH=true through the gateway: a platform of this suite's own (the shared
 * one runs without it, and other suites write without If-Match) where writes to
 * conditional resources without If-Match are 428 and change nothing.
 */
describe('REQUIRE_IF_MATCH through the gateway', () => {
  let p: E2ePlatform;
  let port: number;
  let token: string;

  beforeAll(async () => {
    p = await startE2ePlatform({ REQUIRE_IF_MATCH: 'true' });
    port = p.launched.ports.https;
    const auth = await call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
      port,
      body: { clientSecret: 'alpha-prod-secret', username: 'ann@alpha.example', password: 'ann-password-1' },
    });
    expect(auth.status).toBe(200);
    token = auth.body.access_token;
  }, 120_000);
  afterAll(async () => {
    if (p) await stopE2ePlatform(p);
  });

  it('answers 428 precondition_required to a vault PUT and DELETE without If-Match, and applies them with it', async () => {
    const created = await call('records', 'POST', '/vault', { port, token, body: { name: 'Strict' } });
    expect(created.status).toBe(201);
    const path = `/vault/vault-id/${created.body.id}`;
    const put = await call('records', 'PUT', path, { port, token, body: { name: 'Renamed' } });
    expect(put.status).toBe(428);
    expect(put.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(put.body).toMatchObject({ code: 'precondition_required', requestId: put.headers['x-request-id'] });
    const del = await call('records', 'DELETE', path, { port, token });
    expect(del.status).toBe(428);

    const get = await call('records', 'GET', path, { port, token });
    expect(get.body.name).toBe('Strict');
    const etag = get.headers['etag'] as string;
    const ok = await call('records', 'PUT', path, { port, token, body: { name: 'Renamed' }, headers: { 'if-match': etag } });
    expect(ok.status).toBe(201); // the contract's status of a vault PUT
    expect(ok.body.name).toBe('Renamed');
    const gone = await call('records', 'DELETE', path, { port, token, headers: { 'if-match': ok.headers['etag'] as string } });
    expect(gone.status).toBe(200);
  });

  it('answers 428 to an account PUT without If-Match in the user module', async () => {
    const account = await call('user', 'POST', '/accounts', { port, token, body: { firstName: 'Ann', lastName: 'Alpha' } });
    expect(account.status).toBe(200); // the contract's status of an account creation
    const id = account.body.id ?? account.body._id;
    const put = await call('user', 'PUT', `/accounts/account-id/${id}`, { port, token, body: { firstName: 'Anna' } });
    expect(put.status).toBe(428);
    expect(put.body.code).toBe('precondition_required');
    const get = await call('user', 'GET', `/accounts/account-id/${id}`, { port, token });
    expect(get.body.firstName).toBe('Ann');
  });
});
