import { call } from '../support/client';

/** Each process of the platform, as npm start runs it: its own metrics port, its own series. */
describe('metrics of every process, each on its own port', () => {
  const urls = (): Record<string, string> => JSON.parse(process.env['E2E_METRICS_URLS'] ?? '{}');
  const scrape = async (app: string) => {
    const res = await fetch(urls()[app]);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('gives the four processes four ports', () => {
    const ports = Object.values(urls()).map((u) => new URL(u).port);
    expect(Object.keys(urls()).sort()).toEqual(['developer-service', 'gateway', 'records-service', 'user-service']);
    expect(new Set(ports).size).toBe(4);
  });

  it('exports in each process only the series of what it runs', async () => {
    // a request through the gateway, so that each path has something to count
    const res = await call('user', 'GET', '/accounts/me');
    expect(res.status).toBe(401);
    const gateway = await scrape('gateway');
    expect(gateway).toMatch(
      /^http_server_request_duration_seconds_count\{method="GET",route="user-api",status_code="401"\} \d+$/m,
    );
    // the gateway verifies no token and has no database, outbox or webhooks
    for (const foreign of [
      'jwks_keys_cached',
      'db_pool_connections',
      'outbox_backlog_rows',
      'webhook_',
      'resumable_uploads_open',
    ]) {
      expect(gateway).not.toContain(foreign);
    }
    const user = await scrape('user-service');
    expect(user).toMatch(/^jwks_keys_cached [1-9]\d*$/m);
    expect(user).not.toContain('gateway_rate_limit_rejections_total');
    expect(user).not.toContain('resumable_uploads_open');
    const records = await scrape('records-service');
    expect(records).toMatch(/^jwks_keys_cached [1-9]\d*$/m);
    expect(records).toMatch(/^resumable_uploads_open \d+$/m);
    expect(records).toMatch(/^webhook_delivery_lag_seconds \d/m);
    // the developer module signs tokens and verifies none with a JWKS cache
    const developer = await scrape('developer-service');
    expect(developer).not.toContain('jwks_keys_cached');
    expect(developer).toMatch(/^nats_connection_up\{connection="developer-service"\} 1$/m);
  });
});
