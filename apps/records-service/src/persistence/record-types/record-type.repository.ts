import { Injectable } from '@nestjs/common';
import { RecordSubtypeEntity, RecordTypeEntity } from './record-type.entity';
import { Transactions } from '@vault/platform/persistence';

/** The record type catalogue rows, in display order. */
@Injectable()
export class RecordTypeRepository {
  constructor(private readonly tx: Transactions) {}

  types(): Promise<RecordTypeEntity[]> {
    return this.tx.none.find(RecordTypeEntity, { order: { orderId: 'ASC' } });
  }

  subtypes(): Promise<RecordSubtypeEntity[]> {
    return this.tx.none.find(RecordSubtypeEntity, { order: { orderId: 'ASC' } });
  }
}
