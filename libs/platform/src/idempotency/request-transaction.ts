import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/*
 * The transaction of an idempotent request (docs/architecture.md, Idempotency-Key).
 *
 * While a claimed Idempotency-Key request runs, the transactions its handler opens
 * through the data source (`dataSource.transaction()`, `manager.transaction()`, which
 * every service's transaction helper uses) do not commit on their own: they join one
 * transaction of the request (opened on first use, each joined block a savepoint).
 * The interceptor writes the stored answer into that same transaction and commits it
 * once, after the handler returned; so the change and the key's answer commit
 * together or not at all. Work that must wait for the commit (messages on core NATS)
 * goes through `afterRequestCommit`.
 */

type Work<T> = (manager: EntityManager) => Promise<T>;

export class RequestTransaction {
  private static readonly log = new Logger('Idempotency');
  private opening?: Promise<QueryRunner>;
  private readonly afterCommit: (() => void)[] = [];
  private open = true;
  /**
   * False until the request's fingerprint is known: routes that learn it while
   * reading their body (multipart uploads) run their transactions on their own until then.
   */
  joining: boolean;

  constructor(
    readonly dataSource: DataSource,
    joining: boolean,
  ) {
    this.joining = joining;
  }

  /** Whether transactions on `ds` join this request's transaction now. */
  joins(ds: DataSource): boolean {
    return this.open && this.joining && ds === this.dataSource;
  }

  /** Runs `work` in a savepoint of the request's transaction (opened on first use). */
  async join<T>(isolation: string | undefined, work: Work<T>): Promise<T> {
    const runner = await this.runner();
    const manager = runner.manager as EntityManager & {
      transaction(isolation: string, work: Work<T>): Promise<T>;
    };
    return isolation ? manager.transaction(isolation, work) : runner.manager.transaction(work);
  }

  /** Runs `fn` after the commit; dropped on rollback. */
  defer(fn: () => void): void {
    this.afterCommit.push(fn);
  }

  /** Writes `last` into the request's transaction, commits, then runs the deferred work. */
  async commit(last: (manager: EntityManager) => Promise<void>): Promise<void> {
    const runner = await this.runner();
    this.open = false;
    try {
      await last(runner.manager);
      await runner.commitTransaction();
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    for (const fn of this.afterCommit.splice(0)) {
      try {
        fn();
      } catch (err) {
        RequestTransaction.log.warn(`work after the commit failed: ${String(err)}`);
      }
    }
  }

  /** Rolls back whatever the handler did (nothing when it opened no transaction). */
  async rollback(): Promise<void> {
    this.open = false;
    this.afterCommit.length = 0;
    const runner = await this.opening?.catch(() => undefined);
    if (!runner || runner.isReleased) return;
    try {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
  }

  private runner(): Promise<QueryRunner> {
    this.opening ??= (async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        await runner.connect();
        await runner.startTransaction();
        return runner;
      } catch (err) {
        await runner.release().catch(() => undefined);
        throw err;
      }
    })();
    return this.opening;
  }
}

const current = new AsyncLocalStorage<RequestTransaction>();

/** Runs `fn` (and everything it starts) with `tx` as the request's transaction. */
export function runInRequestTransaction<T>(tx: RequestTransaction, fn: () => T): T {
  return current.run(tx, fn);
}

/** The idempotent request being served, if any. */
export function currentRequestTransaction(): RequestTransaction | undefined {
  return current.getStore();
}

/**
 * Runs `fn` once the current request's changes are committed: at once outside an
 * idempotent request, after its single commit inside one, never when it rolls back.
 */
export function afterRequestCommit(fn: () => void): void {
  const tx = current.getStore();
  if (tx?.joins(tx.dataSource)) tx.defer(fn);
  else fn();
}

const JOINS = Symbol('vault:joins-request-transactions');

/**
 * Makes `ds.transaction()` and `ds.manager.transaction()` join the idempotent
 * request's transaction when one is active (called once per data source by
 * DatabaseModule). Outside such a request nothing changes.
 */
export function joinRequestTransactions(ds: DataSource): void {
  const manager = ds.manager as EntityManager & { [JOINS]?: true };
  if (manager[JOINS]) return;
  const own = manager.transaction.bind(manager) as (a: unknown, b?: unknown) => Promise<unknown>;
  const joined = (a: unknown, b?: unknown): Promise<unknown> => {
    const tx = current.getStore();
    if (!tx?.joins(ds)) return own(a, b);
    const isolation = typeof a === 'string' ? a : undefined;
    const work = (typeof a === 'function' ? a : b) as Work<unknown>;
    return tx.join(isolation, work);
  };
  Object.assign(manager, { transaction: joined, [JOINS]: true });
}
