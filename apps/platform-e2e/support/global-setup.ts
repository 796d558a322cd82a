import { ADMIN_URL, startE2ePlatform } from './e2e-platform';
import { startPageServer } from './page-server';

/** Starts the platform the suites share and records where it listens. */
export default async function globalSetup(): Promise<void> {
  // A browser client's page, its origin registered on an application (browser-cors.spec.ts).
  const page = await startPageServer();
  (globalThis as Record<string, unknown>)['__PAGE_SERVER__'] = page.server;
  const p = await startE2ePlatform({}, [`http://127.0.0.1:${page.port}`]);
  (globalThis as Record<string, unknown>)['__PLATFORM__'] = p;
  const { launched, run, dir } = p;
  Object.assign(process.env, {
    E2E_GATEWAY_PORT: String(launched.ports.https),
    E2E_HTTP_PORT: String(launched.ports.http),
    E2E_DEVELOPER_PORT: String(launched.ports['developer-service']),
    E2E_USER_PORT: String(launched.ports['user-service']),
    E2E_RECORDS_PORT: String(launched.ports['records-service']),
    E2E_DOMAIN: launched.domain,
    E2E_DATABASES: JSON.stringify(launched.databases),
    E2E_ADMIN_URL: ADMIN_URL,
    E2E_WORK_DIR: dir,
    E2E_EVENTS_NAMESPACE: run,
    E2E_PAGE_PORT: String(page.port),
    E2E_METRICS_URLS: JSON.stringify(launched.metricsUrls),
  });
}
