import { DataSource, MoreThan } from 'typeorm';
import { connectDatabase, dataSourceOptions, EnvValidationError, loadEnv, migrateWithLock } from '@vault/platform';
import { AccountEntity } from '../accounts/account.entity';
import { ENTITIES } from '../app/entities';
import { UserEnv } from '../config/user.env';
import { MIGRATIONS } from '../migrations';
import { AccountOutbox, accountState } from './account-outbox';

/** Process mode: `node main.js account-events-backfill`. */
export const ACCOUNT_EVENTS_BACKFILL_MODE = 'account-events-backfill';

/**
 * Writes one event with the full current state per account into the outbox
 * (`account.updated`; `account.deleted` for a deleted account, its personal fields
 * erased), `batchSize` accounts per transaction in id order; the relay publishes
 * them. A consumer that already holds an account's version ignores its event, so
 * running it again (or while accounts change) is harmless. Returns the number of
 * events written.
 */
export async function backfillAccountEvents(
  ds: DataSource,
  batchSize: number,
  onBatch: (written: number) => void = () => undefined,
): Promise<number> {
  const outbox = new AccountOutbox();
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const batch = await ds.transaction(async (m) => {
      const accounts = await m.getRepository(AccountEntity).find({
        where: after === undefined ? {} : { id: MoreThan(after) },
        order: { id: 'ASC' },
        take: batchSize,
        withDeleted: true,
      });
      await outbox.updated(m, accounts.filter((a) => a.deletedAt === null));
      await outbox.deleted(m, accounts.filter((a) => a.deletedAt !== null).map(accountState));
      return accounts;
    });
    if (batch.length === 0) return total;
    total += batch.length;
    after = batch[batch.length - 1].id;
    onBatch(total);
    if (batch.length < batchSize) return total;
  }
}

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
