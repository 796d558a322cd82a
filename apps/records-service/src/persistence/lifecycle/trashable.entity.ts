import { Column } from 'typeorm';

/**
 * The lifecycle columns of what a DELETE moves to the trash (vaults, records, record
 * files, file versions; docs/records-api.md, Trash): live rows have all three null.
 */
export abstract class Trashable {
  /** Set while the item is in the trash. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;

  /** Who moved it to the trash (the actor's display name). */
  @Column({ name: 'deleted_by', type: 'text', nullable: true })
  deletedBy!: string | null;

  /** When the purger removes it from the trash (later while a hold or retention keeps it). */
  @Column({ name: 'purge_at', type: 'timestamptz', nullable: true })
  purgeAt!: Date | null;
}
