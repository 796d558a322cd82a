import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { OtlpReceiver, ReceivedSpan } from '@vault/platform/testing';
import { LOOPBACK_S3_BUCKET, LoopbackS3 } from '@vault/platform/testing/s3';
import { Client } from 'pg';
import { call, tokenFor } from '../support/client';
import { ADMIN_URL, E2ePlatform, startE2ePlatform, stopE2ePlatform } from '../support/e2e-platform';
import { describeFileVersions } from '../support/file-versions-suite';
import { describeTrash } from '../support/trash-suite';
import { eventually } from '../support/people';
import { newRecordFiles, uploadFile } from '../support/uploads';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
/** Debian's awscli (.ci/run installs it): a client of the loopback S3 we did not write. */
const AWS = process.env['AWS_CLI_BIN'] ?? '/usr/bin/aws';
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_PRODUCER = 4;
const SPAN_KIND_CONSUMER = 5;
const EVENTS_SCOPE = '@vault/platform/events';

/**
 * The trash and file-version suites through the gateway with records-service on an S3 store
 * (the loopback s3rver of the S3 suites): a platform of this file's own, started once for
 * all of them, and the gateway client pointed at it (jest gives each spec file its own
 * process.env, so the shared platform's suites are not affected). Then what the bucket
 * holds, listed by awscli: a purge and the thinning of versions remove their objects, and
 * `storage-audit` (the built main.js, as `npm run storage:audit` runs it) finds nothing
 * orphaned either way.
 *
 * The same platform has tracing on (OTLP/HTTP to an in-test receiver), for the last suite:
 * one trace from the edge to the last consumer. One platform start serves both (a second
 * one for the traces alone took as long as their test); tracing changes nothing the other
 * suites see.
 */
describe('trash and file versions on the S3 store, traces through the whole platform', () => {
  let s3: LoopbackS3;
  let otlp: OtlpReceiver;
  let p: E2ePlatform;
  let pg: Client;
  let recordsUrl: string;

  beforeAll(async () => {
    [s3, otlp] = await Promise.all([LoopbackS3.start(), OtlpReceiver.start()]);
    p = await startE2ePlatform({
      ...s3.env(),
      TRASH_PURGE_INTERVAL_MS: '200',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // each app names its spans after itself
      OTEL_SERVICE_NAME: '',
    });
    Object.assign(process.env, {
      E2E_GATEWAY_PORT: String(p.launched.ports.https),
      E2E_HTTP_PORT: String(p.launched.ports.http),
      E2E_DOMAIN: p.launched.domain,
      E2E_DATABASES: JSON.stringify(p.launched.databases),
    });
    const url = new URL(ADMIN_URL);
    url.pathname = `/${p.launched.databases['records-service']}`;
    recordsUrl = url.toString();
    pg = new Client({ connectionString: recordsUrl });
    await pg.connect();
  }, 180_000);
  afterAll(async () => {
    await pg?.end();
    if (p) await stopE2ePlatform(p);
    await s3?.stop();
    await otlp?.stop();
  });

  describeTrash('S3 store');
  describeFileVersions('S3 store');

  describe('what the bucket holds', () => {
    let owner: string;
    let files: string;

    const aws = async (...args: string[]) =>
      (
        await run(AWS, ['--endpoint-url', s3.endpoint, '--region', 'us-east-1', 's3', ...args], {
          env: { ...process.env, ...s3.env() },
        })
      ).stdout;
    /** The bucket's keys as awscli lists them. */
    const bucket = async () =>
      (await aws('ls', `s3://${LOOPBACK_S3_BUCKET}/`))
        .split('\n')
        .map((l) => l.trim().split(/\s+/).pop() ?? '')
        .filter(Boolean)
        .sort();
    const sql = async <T>(text: string, params: unknown[] = []) => (await pg.query(text, params)).rows as T[];
    const blobKeys = async () => (await sql<{ k: string }>('SELECT storage_key AS k FROM blobs ORDER BY 1')).map((r) => r.k);
    /** The purge queue has run dry (uploads still in flight would keep their own rows). */
    const purgesDone = () => eventually(async () => (await sql('SELECT 1 FROM file_purges')).length === 0);
    /** `main.js storage-audit` of the built records-service, on this platform's database and bucket. */
    const audit = async () => {
      const env = { ...process.env, ...s3.env(), NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: recordsUrl };
      const out = await run(process.execPath, [path.join(ROOT, 'dist/apps/records-service/main.js'), 'storage-audit'], {
        env,
        cwd: ROOT,
      }).catch((err: { code: number; stdout: string; stderr: string }) => {
        throw new Error(`storage-audit exited ${err.code}: ${err.stdout} ${err.stderr}`);
      });
      return JSON.parse(out.stdout);
    };
    const send = (name: string, bytes: Buffer, replace = false) => uploadFile(owner, files, name, bytes, { replace });

    beforeAll(async () => {
      owner = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'ann@alpha.example', 'ann-password-1');
      files = await newRecordFiles(owner, 'Bucket e2e');
    });

    it('after the suites above, the bucket holds exactly the blobs and the audit finds no orphan', async () => {
      await purgesDone();
      const keys = await blobKeys();
      expect(keys.length).toBeGreaterThan(0);
      expect(await bucket()).toEqual(keys);
      expect(await audit()).toEqual({ orphanObjects: [], missingObjects: [], storedKeys: keys.length, blobs: keys.length });
    });

    it('a purge from the trash removes the object of the last reference', async () => {
      const up = await send('lease.pdf', randomBytes(2000));
      expect(up.status).toBe(201);
      const [{ k: key }] = await sql<{ k: string }>('SELECT storage_key AS k FROM record_files WHERE id = $1', [up.body._id]);
      expect(await bucket()).toContain(key);
      expect((await call('records', 'DELETE', `${files}/lease.pdf`, { token: owner })).status).toBe(200);
      // in the trash the bytes stay
      expect(await bucket()).toContain(key);
      expect((await call('records', 'DELETE', `/trash/item-id/${up.body._id}`, { token: owner })).status).toBe(200);
      await purgesDone();
      expect(await bucket()).not.toContain(key);
      expect(await bucket()).toEqual(await blobKeys());
      expect((await audit()).orphanObjects).toEqual([]);
    });

    it('versions thinned into the trash lose their objects once purged; shared bytes stay', async () => {
      const contents = Array.from({ length: 11 }, () => randomBytes(500));
      const first = await send('deed.pdf', contents[0]);
      expect(first.status).toBe(201);
      for (const bytes of contents.slice(1)) expect((await send('deed.pdf', bytes, true)).status).toBe(201);
      // the same bytes as version 2 under another name: one blob, two references
      const twin = await send('deed-copy.pdf', contents[1]);
      expect(twin.status).toBe(201);
      const versions = await call('records', 'GET', `${files}/deed.pdf/versions`, { token: owner });
      expect(versions.body.map((v: { number: number }) => v.number)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
      const [v1, v2] = await sql<{ id: string; k: string }>(
        `SELECT v.id, b.storage_key AS k FROM file_versions v JOIN blobs b ON b.id = v.blob_id
          WHERE v.file_id = $1 AND v.number <= 2 ORDER BY v.number`,
        [first.body._id],
      );
      expect(await bucket()).toContain(v1.k);

      // version 1 is in the trash; made due, the trash purger deletes it and the purge its object
      await sql(`UPDATE file_versions SET purge_at = now() - interval '1 minute' WHERE id = $1 AND deleted_at IS NOT NULL`, [
        v1.id,
      ]);
      await eventually(async () => (await sql('SELECT 1 FROM file_versions WHERE id = $1', [v1.id])).length === 0);
      await purgesDone();
      const listed = await bucket();
      expect(listed).not.toContain(v1.k);
      expect(listed).toContain(v2.k);
      expect(listed).toEqual(await blobKeys());
      const refs = await sql<{ k: string; ref_count: number; n: string }>(
        `SELECT b.storage_key AS k, b.ref_count, (SELECT count(*) FROM file_versions v WHERE v.blob_id = b.id) AS n FROM blobs b`,
      );
      for (const r of refs) expect([r.k, r.ref_count]).toEqual([r.k, Number(r.n)]);
      expect(await audit()).toEqual({ orphanObjects: [], missingObjects: [], storedKeys: listed.length, blobs: listed.length });
    });
  });

  /**
   * The gateway's span of a request, the records-service request it forwarded (W3C
   * traceparent), the relay's publish of the change's outbox row (traceparent NATS header)
   * and the activity-log writer's handler.
   */
  describe('traces through the whole platform', () => {
    it('joins the gateway, records-service, the relay and the activity-log writer in one trace', async () => {
      const port = p.launched.ports.https;
      const auth = await call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
        port,
        body: { clientSecret: 'alpha-prod-secret', username: 'bob@alpha.example', password: 'bob-password-1' },
      });
      expect(auth.status).toBe(200);
      // spans of the suites above are not this request's
      const earlier = new Set(otlp.spans);
      const created = await call('records', 'POST', '/vault', { port, token: auth.body.access_token, body: { name: 'Traced' } });
      expect(created.status).toBe(201);

      // the service's server span is named after the method and route
      const isVaultPost = (s: ReceivedSpan) => s.kind === SPAN_KIND_SERVER && s.name === 'POST /api/v1/vault';
      const service = await otlp.waitFor(
        (s) => !earlier.has(s) && s.service.startsWith('records-service') && isVaultPost(s),
        30_000,
      );
      const inTrace = (pred: (s: ReceivedSpan) => boolean) =>
        otlp.waitFor((s) => s.traceId === service.traceId && pred(s), 30_000);
      // the gateway's span of the same request: the trace started at the edge
      const edge = await inTrace((s) => s.service.startsWith('gateway') && s.kind === SPAN_KIND_SERVER);
      expect(edge.parentSpanId).toBe('');
      const publish = await inTrace((s) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_PRODUCER);
      const consume = await inTrace(
        (s) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_CONSUMER && s.name === 'activity_log_writer process',
      );
      expect([edge.service, service.service].map((s) => s.split('-')[0])).toEqual(['gateway', 'records']);
      // the publish descends from the service's request, the writer's handler from a publish
      expect(publish.service).toMatch(/^records-service/);
      const publishIds = otlp.spans
        .filter((s) => s.traceId === service.traceId && s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_PRODUCER)
        .map((s) => s.spanId);
      expect(publishIds).toContain(consume.parentSpanId);
    });
  });
});
