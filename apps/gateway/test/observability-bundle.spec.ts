import { createTestDatabase, freePort, OtlpReceiver, TestDatabase } from '@vault/platform/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { call } from './support/client';
import { GatewayProcess, startGatewayProcess } from './support/gateway-process';

const ROOT = join(__dirname, '../../..');
const bundle = (app: string) => join(ROOT, 'dist/apps', app, 'main.js');
const SPAN_KIND_SERVER = 2;

/**
 * The webpack bundles leave node_modules external, and `@vault/platform/tracing` is their
 * first import: http, express and pg must be instrumented in the built apps as in the
 * sources. Runs on the bundles of `nx build` (gateway's test target builds them first).
 */
describe('traces from the built bundles (dist/apps)', () => {
  let db: TestDatabase;
  let otlp: OtlpReceiver;
  let developer: ChildProcess;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    db = await createTestDatabase('gateway_bundle_traces');
    otlp = await OtlpReceiver.start();
    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: '',
    };
    const port = await freePort();
    developer = spawn(process.execPath, [bundle('developer-service')], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...tracing,
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: db.url,
        VAULT_BOOTSTRAP_FILE: '',
      },
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600 && developer.exitCode === null; i++) {
      if (
        await fetch(`${base}/health/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    gateway = await startGatewayProcess({ ...tracing, GATEWAY_DOMAIN: 'localhost', DEVELOPER_SERVICE_URL: base }, [
      bundle('gateway'),
    ]);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    developer?.kill('SIGTERM');
    await otlp?.stop();
    await db?.drop();
  });

  it('exports http, express and pg spans of one trace across the gateway and the service, named by their folders', async () => {
    const res = await call(gateway.httpsPort, {
      host: 'developer-api.localhost',
      method: 'POST',
      path: '/api/v1/tenant/tenant-id/t-bundle/applications/client-id/c-bundle/auth',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientSecret: 'wrong-secret-1', username: 'nobody@x.test', password: 'nothing-here' }),
    });
    expect(res.status).toBe(401);
    const server = await otlp.waitFor(
      (s) => s.service === 'developer-service' && s.kind === SPAN_KIND_SERVER && s.name.startsWith('POST '),
    );
    await otlp.waitFor((s) => s.traceId === server.traceId && s.scope.endsWith('instrumentation-pg'));
    // the gateway's spans end after the service answered: they come in a later export
    await otlp.waitFor((s) => s.traceId === server.traceId && s.service === 'gateway' && s.kind === SPAN_KIND_SERVER);
    const scopes = new Set(
      otlp.spans
        .filter((s) => s.traceId === server.traceId)
        .map((s) => `${s.service} ${s.scope.replace('@opentelemetry/instrumentation-', '')}`),
    );
    expect([...scopes].sort()).toEqual([
      'developer-service express',
      'developer-service http',
      'developer-service pg',
      'gateway http',
    ]);
    expect(server.name).toBe('POST /api/v1/tenant/tenant-id/:tenantId/applications/client-id/:clientId/auth');
  });
});
