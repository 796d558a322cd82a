import request from 'supertest';
import { freePort, ServiceProcess, startServiceProcess, stopServiceProcess } from '@vault/platform/testing';
import { AccountEventsRelay } from '../src/capabilities/account-events/account-events.relay';
import { auth, fullAccount, startUserService, UserService } from './support';

/** The value of one series in a Prometheus text exposition, or undefined. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/**
 * The user-service process serves its metrics on METRICS_PORT: the request histogram by
 * route template, the database pool, the account outbox and the NATS connection, each
 * moving with the requests it serves.
 */
describe('user-service metrics', () => {
  jest.setTimeout(120_000);
  let svc: UserService;
  let service: ServiceProcess | undefined;
  let base: string;
  let metrics: string;

  beforeAll(async () => {
    svc = await startUserService('user_metrics');
    // the process under test relays the outbox alone
    await svc.app.get(AccountEventsRelay).host.stop();
    const port = await freePort();
    service = await startServiceProcess('user-service', { ...svc.env, METRICS_PORT: String(port), OUTBOX_RELAY_POLL_MS: '100' });
    base = service.base;
    metrics = `http://127.0.0.1:${port}/metrics`;
  });
  afterAll(async () => {
    await stopServiceProcess(service);
    await svc?.stop();
  });

  const scrape = async () => (await fetch(metrics)).text();
  const created = (text: string) =>
    sample(text, 'http_server_request_duration_seconds_count{method="POST",route="/api/v1/accounts",status_code="200"}') ?? 0;
  const published = (text: string) => sample(text, 'outbox_relay_published_total{table="account_outbox_events"}') ?? 0;

  it('counts account creations by route template, their outbox rows published, and shows the pool and NATS', async () => {
    const before = await scrape();
    expect(sample(before, 'nats_connection_up{connection="user-service"}')).toBe(1);
    expect(before).toMatch(/^db_pool_connections\{pool="user-service",state="total"\} \d+$/m);
    expect(before).toMatch(/^outbox_oldest_unpublished_age_seconds\{table="account_outbox_events"\} /m);

    for (let i = 0; i < 2; i++) {
      await request(base)
        .post('/api/v1/accounts')
        .set(auth(await svc.token()))
        .send(fullAccount())
        .expect(200);
    }
    const deadline = Date.now() + 15_000;
    let after = await scrape();
    while (published(after) < published(before) + 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape();
    }
    expect(created(after) - created(before)).toBe(2);
    expect(published(after) - published(before)).toBe(2);
    expect(Number(/^db_pool_connections\{pool="user-service",state="total"\} (\d+)$/m.exec(after)?.[1])).toBeGreaterThan(0);
    // route templates only: no account id in any label
    expect(after).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
