import type { BlockSections, DisplayValue } from '@vault/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Columns every catalogue entry has (reference data shipped by migration). */
abstract class CatalogueEntry {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'order_id', type: 'int' })
  orderId!: number;

  @Column({ type: 'text' })
  logo!: string;

  @Column({ name: 'display_value', type: 'jsonb' })
  displayValue!: DisplayValue[];
}

/** The record types (see docs/records-api.md, Record types). */
@Entity('record_types')
export class RecordTypeEntity extends CatalogueEntry {
  @Column({ name: 'vault_type', type: 'text' })
  vaultType!: string;
}

/** The subtypes of each record type. */
@Entity('record_subtypes')
export class RecordSubtypeEntity extends CatalogueEntry {
  @Column({ name: 'record_type_id', type: 'uuid' })
  recordTypeId!: string;

  @Column({ name: 'block_sections', type: 'jsonb' })
  blockSections!: BlockSections;
}
