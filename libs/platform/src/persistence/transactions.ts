import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A database transaction, handed to repository methods that must run inside one. */
export type Tx = EntityManager;

/** Runs work in one database transaction (services hold no DataSource of their own). */
@Injectable()
export class Transactions {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** Outside a transaction: statements run on their own (autocommit). */
  get none(): Tx {
    return this.ds.manager;
  }
}
