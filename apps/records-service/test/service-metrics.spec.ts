import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  ServiceProcess,
  startServiceProcess,
  stopServiceProcess,
  TestDatabase,
  TestIdentityProvider,
  TestNatsServer,
} from '@vault/platform/testing';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { createRecordsDatabase } from './records-database';

/** The value of one series in a Prometheus text exposition (0 when absent). */
const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

/**
 * The records-service process serves its metrics on METRICS_PORT: requests by route
 * template, file bytes in and out, the outbox relay and the activity-log writer it runs
 * inline, the database pool and NATS, each moving with what the service does.
 */
describe('records-service metrics, scraped from the process', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let db: TestDatabase;
  let idp: TestIdentityProvider;
  let service: ServiceProcess;
  let dir: string;
  let metrics: string;

  beforeAll(async () => {
    // a private NATS: the streams of the run go with it
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('service_metrics');
    idp = await TestIdentityProvider.start();
    dir = mkdtempSync(join(tmpdir(), 'service-metrics-'));
    const port = await freePort();
    service = await startServiceProcess('records-service', {
      ...idp.env(),
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('svcmetrics'),
      OUTBOX_RELAY_POLL_MS: '100',
      WEBHOOK_DISPATCHER: 'inline',
      CHANGE_FEED_WRITER: 'inline',
      VAULT_PLANS_FILE: '',
      VAULT_BRANDING_FILE: '',
      VAULT_INBOX_DOMAIN: 'inbox.vault.localhost',
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      METRICS_PORT: String(port),
    });
    metrics = `http://127.0.0.1:${port}/metrics`;
  });
  afterAll(async () => {
    await stopServiceProcess(service);
    await idp?.stop();
    await db?.drop();
    await nats?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async () => (await fetch(metrics)).text();

  it('moves the request, file, outbox, writer and pool series with a vault, a record and a file', async () => {
    const before = await scrape();
    expect(sample(before, 'nats_connection_up{connection="records-service"}')).toBe(1);

    const token = await idp.token({ sub: `vault|${randomUUID()}`, tid: 'tenant-metrics', username: 'mia' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = `${service.base}/api/v1`;
    const vault = await fetch(`${api}/vault`, { method: 'POST', headers, body: JSON.stringify({ name: 'Measured' }) });
    expect(vault.status).toBe(201);
    const vaultId = ((await vault.json()) as { id: string }).id;
    const record = await fetch(`${api}/vault/vault-id/${vaultId}/records`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Lease',
        description: 'Flat',
        recordTypeName: 'realEstate',
        recordSubtypeName: 'other',
        recordSubtypeOther: 'Lease',
      }),
    });
    expect(record.status).toBe(200);
    const recordId = ((await record.json()) as { id: string }).id;
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(1000, 7)], { type: 'application/pdf' }), 'lease.pdf');
    const files = `${api}/vault/vault-id/${vaultId}/records/record-id/${recordId}/record-files`;
    const meta = new URLSearchParams({ fileName: '260101120000_lease.pdf', correlationId: '260101120000', fileType: 'document' });
    const uploaded = await fetch(`${files}?${meta}`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const downloaded = await fetch(`${files}/260101120000_lease.pdf`, { headers: { authorization: headers.authorization } });
    expect((await downloaded.arrayBuffer()).byteLength).toBe(1000);

    // vault, licence, record and file events: relayed and written to the activity log
    const moved = (text: string, series: string) => sample(text, series) - sample(before, series);
    await waitFor(
      async () => moved(await scrape(), 'jetstream_consumer_processed_total{consumer="activity_log_writer"}') >= 4,
      20_000,
      'the writer to store the events',
    );
    const after = await scrape();
    expect(
      moved(after, 'http_server_request_duration_seconds_count{method="POST",route="/api/v1/vault",status_code="201"}'),
    ).toBe(1);
    expect(
      moved(
        after,
        'http_server_request_duration_seconds_count{method="POST",route="/api/v1/vault/vault-id/:vaultId/records",status_code="200"}',
      ),
    ).toBe(1);
    expect(moved(after, 'file_bytes_total{direction="in"}')).toBe(1000);
    expect(moved(after, 'file_bytes_total{direction="out"}')).toBe(1000);
    expect(moved(after, 'outbox_relay_published_total{table="outbox_events"}')).toBeGreaterThanOrEqual(4);
    expect(sample(after, 'db_pool_connections{pool="records-service",state="total"}')).toBeGreaterThan(0);
    // route templates only: no id in any label
    expect(after).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);

    // the change feed's writer: each event's lag from its occurrence to its feed row
    await waitFor(
      async () => moved(await scrape(), 'change_feed_write_lag_seconds_count') >= 1,
      20_000,
      'the change-feed writer to write the events',
    );
    // the dispatcher runs here: its backlog (no subscription, nothing pending) and lag
    expect(sample(after, 'webhook_deliveries{state="pending"}')).toBe(0);
    expect(after).toMatch(/^webhook_deliveries\{state="failing"\} 0$/m);
    expect(after).toMatch(/^webhook_delivery_lag_seconds 0$/m);

    // one tus upload opened: counted until it ends
    expect(after).toMatch(/^resumable_uploads_open 0$/m);
    const metadata = Object.entries({ fileName: '260101120001_scan.pdf', correlationId: '260101120001', fileType: 'document' })
      .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
      .join(',');
    const opened = await fetch(`${api}/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads`, {
      method: 'POST',
      headers: {
        authorization: headers.authorization,
        'tus-resumable': '1.0.0',
        'upload-length': '100',
        'upload-metadata': metadata,
      },
    });
    expect(opened.status).toBe(201);
    expect(sample(await scrape(), 'resumable_uploads_open')).toBe(1);
  });

  it('exports no series of components it does not run', async () => {
    const text = await scrape();
    for (const foreign of [
      'gateway_rate_limit_rejections_total',
      'gateway_cors_unregistered_origin_total',
      'login_throttle_refusals_total',
    ]) {
      expect(text).not.toContain(foreign);
    }
  });
});
