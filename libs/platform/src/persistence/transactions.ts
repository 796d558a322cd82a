import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentRequestTransaction } from '../idempotency/request-transaction';
import { isResultTypeChange } from './statement-names';

/** A database transaction, handed to repository methods that must run inside one. */
export type Tx = EntityManager;

/** What the work of Transactions.runCommittingWith ends with: its result and its last statement. */
export interface EndedWith<T> {
  result: T;
  /**
   * The transaction's last statement as SQL text with its values written in (escaped): it
   * travels with the COMMIT in one simple-query message, which takes no parameters. It refuses
   * by raising an error: the COMMIT after it then does not run and the transaction rolls back.
   */
  last: string;
}

/** Times runCommittingWith runs its work when named statements are refused as reshaped (isResultTypeChange). */
const RESHAPED_RUNS_MAX = 4;

/** Runs work in one database transaction (services hold no DataSource of their own). */
@Injectable()
export class Transactions {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /**
   * Runs work in one transaction as run() does, and sends the last statement it names and the
   * COMMIT in one message: PostgreSQL runs both without waiting for this process in between.
   * For a last statement that locks a row every writer of it needs (a counter): the row is held
   * for the statement and the commit only, not also while its answer waits for the event loop
   * and the COMMIT travels back (docs/architecture.md, "A counter's row is held for the
   * commit only"). Inside an Idempotency-Key request, whose transaction commits later with
   * the stored answer, the statement runs in that transaction like any other.
   *
   * `work` runs again, in a new transaction, when PostgreSQL refused one of its named statements
   * because a migration reshaped its result (withStatementName has renamed it by then; up to
   * RESHAPED_RUNS_MAX runs in all): its effects must stay inside the transaction. Not inside an
   * Idempotency-Key request, whose transaction the work joins.
   */
  async runCommittingWith<T>(work: (tx: Tx) => Promise<EndedWith<T>>): Promise<T> {
    if (currentRequestTransaction()?.joins(this.ds)) {
      return this.ds.transaction(async (tx) => {
        const { result, last } = await work(tx);
        await tx.query(last);
        return result;
      });
    }
    // each refusal renames one statement: a transaction may hold more than one a migration reshaped
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commitWith(work);
      } catch (err) {
        if (!isResultTypeChange(err) || attempt === RESHAPED_RUNS_MAX) throw err;
      }
    }
  }

  private async commitWith<T>(work: (tx: Tx) => Promise<EndedWith<T>>): Promise<T> {
    const runner = this.ds.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      const { result, last } = await work(runner.manager);
      await runner.query(`${last};\nCOMMIT`);
      // committed by that message: the runner must not COMMIT (nor ROLLBACK) it again
      Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
      return result;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /**
   * Runs work that sends exactly one statement, which is then a transaction by itself (its
   * data-modifying WITH parts commit together or not at all): on its own, with no BEGIN and
   * COMMIT around it; inside an Idempotency-Key request, in that request's transaction, as
   * run() does.
   */
  single<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return currentRequestTransaction()?.joins(this.ds) ? this.ds.transaction(work) : work(this.ds.manager);
  }

  /** Outside a transaction: statements run on their own (autocommit). */
  get none(): Tx {
    return this.ds.manager;
  }
}
