import type { DataSource } from 'typeorm';
import { AccountRepository } from '../../persistence/accounts/account.repository';
import { Transactions } from '@vault/platform/persistence';
import { AccountOutbox, accountState } from './account-outbox';

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
  const transactions = new Transactions(ds);
  const repository = new AccountRepository(transactions);
  const outbox = new AccountOutbox();
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const batch = await transactions.run(async (tx) => {
      const accounts = await repository.pageById(tx, after, batchSize);
      await outbox.updated(
        tx,
        accounts.filter((a) => a.deletedAt === null),
      );
      await outbox.deleted(tx, accounts.filter((a) => a.deletedAt !== null).map(accountState));
      return accounts;
    });
    if (batch.length === 0) return total;
    total += batch.length;
    after = batch[batch.length - 1].id;
    onBatch(total);
    if (batch.length < batchSize) return total;
  }
}
