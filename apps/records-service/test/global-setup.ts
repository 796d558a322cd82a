import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// jest loads its global hooks without moduleNameMapper: the @vault/platform aliases do not resolve here
// eslint-disable-next-line @nx/enforce-module-boundaries
import setupDatabaseTemplate from '../../../libs/platform/src/testing/jest/database-template.setup';

/** The run's SoftHSM2 folder, for the teardown (jest runs both hooks in its main process). */
export const SOFTHSM_DIR_KEY = Symbol.for('vault.testing.softhsmDir');

/**
 * jest `globalSetup` of records-service: the migrated database template
 * (setupDatabaseTemplate) and a SoftHSM2 configuration of this run's own, its token
 * directory in a temporary folder, named by SOFTHSM2_CONF. SoftHSM2 reads that variable
 * from the real process environment, which a test file cannot change: set here, before
 * jest starts its workers, it reaches them and the `softhsm2-util` they run, so the
 * PKCS#11 suite never writes to the system's token directory.
 */
export default async function globalSetup(global: unknown, project: { rootDir: string }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vault-softhsm-'));
  const tokens = join(dir, 'tokens');
  mkdirSync(tokens);
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  process.env['SOFTHSM2_CONF'] = conf;
  (globalThis as Record<symbol, string | undefined>)[SOFTHSM_DIR_KEY] = dir;
  await setupDatabaseTemplate(global, project);
}
