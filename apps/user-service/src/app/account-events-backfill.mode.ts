import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { connectDatabase, dataSourceOptions, migrateWithLock } from '@vault/platform/persistence';
import { backfillAccountEvents } from '../capabilities/account-events/account-events-backfill';
import { UserEnv } from '../config/user.env';
import { MIGRATIONS } from '../migrations';
import { ENTITIES } from '../persistence/entities';

/** Process mode: `node main.js account-events-backfill`. */
export const ACCOUNT_EVENTS_BACKFILL_MODE = 'account-events-backfill';

/** `node main.js account-events-backfill`: runs the backfill against DATABASE_URL and exits. */
export async function runAccountEventsBackfill(): Promise<void> {
  try {
    const env = loadEnv(UserEnv);
    const ds = await connectDatabase(dataSourceOptions(env.DATABASE_URL, { entities: ENTITIES, migrations: MIGRATIONS }, false));
    try {
      if (env.DB_MIGRATE_ON_START) await migrateWithLock(ds);
      const total = await backfillAccountEvents(ds, env.ACCOUNT_EVENTS_BACKFILL_BATCH_SIZE, (n) =>
        console.log(`account events backfill: ${n} account(s) written to the outbox`),
      );
      console.log(`account events backfill done: ${total} account event(s) queued for the relay`);
    } finally {
      await ds.destroy();
    }
    process.exit(0);
  } catch (err) {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  }
}
