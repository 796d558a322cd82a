import type { BlockSections, DisplayValue } from '@vault/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Reference data shipped by migration: the record types of contract §2.10. */
@Entity('record_types')
export class RecordTypeEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text', unique: true })
  name!: string;

  @Column({ name: 'vault_type', type: 'text' })
  vaultType!: string;

  @Column({ name: 'order_id', type: 'int' })
  orderId!: number;

  @Column({ type: 'text' })
  logo!: string;

  @Column({ name: 'display_value', type: 'jsonb' })
  displayValue!: DisplayValue[];
}

/** Reference data: the subtypes of each record type. */
@Entity('record_subtypes')
export class RecordSubtypeEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'record_type_id', type: 'uuid' })
  recordTypeId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'order_id', type: 'int' })
  orderId!: number;

  @Column({ type: 'text' })
  logo!: string;

  @Column({ name: 'display_value', type: 'jsonb' })
  displayValue!: DisplayValue[];

  @Column({ name: 'block_sections', type: 'jsonb' })
  blockSections!: BlockSections;
}
