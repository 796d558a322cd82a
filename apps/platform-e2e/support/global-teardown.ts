import { E2ePlatform, stopE2ePlatform } from './e2e-platform';

export default async function globalTeardown(): Promise<void> {
  const p = (globalThis as Record<string, unknown>)['__PLATFORM__'] as E2ePlatform | undefined;
  if (p) await stopE2ePlatform(p);
  const page = (globalThis as Record<string, unknown>)['__PAGE_SERVER__'] as import('node:http').Server | undefined;
  page?.closeAllConnections();
  page?.close();
}
