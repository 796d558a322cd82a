import { rmSync } from 'node:fs';

const platform = require('../../../scripts/platform.cjs');

export default async function globalTeardown(): Promise<void> {
  const launched = (globalThis as Record<string, unknown>)['__PLATFORM__'] as
    | { stop(): Promise<void>; databases: Record<string, string> }
    | undefined;
  if (!launched) return;
  await launched.stop();
  await platform.dropDatabases(process.env['E2E_ADMIN_URL'], Object.values(launched.databases));
  if (process.env['E2E_WORK_DIR']) rmSync(process.env['E2E_WORK_DIR'], { recursive: true, force: true });
}
