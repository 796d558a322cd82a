import { rmSync } from 'node:fs';
// jest loads its global hooks without moduleNameMapper: the @vault/platform aliases do not resolve here
// eslint-disable-next-line @nx/enforce-module-boundaries
import teardownDatabaseTemplate from '../../../libs/platform/src/testing/jest/database-template.teardown';
import { SOFTHSM_DIR_KEY } from './global-setup';

/** jest `globalTeardown` of records-service: drops the database template, removes the SoftHSM2 folder. */
export default async function globalTeardown(): Promise<void> {
  const dir = (globalThis as Record<symbol, string | undefined>)[SOFTHSM_DIR_KEY];
  if (dir) rmSync(dir, { recursive: true, force: true });
  await teardownDatabaseTemplate();
}
