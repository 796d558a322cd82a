import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { AccountLocale, AgreementType } from '@vault/contracts';

/** One consent (or refusal) to a version of an agreement; the history is kept. */
@Entity('agreements')
export class AgreementEntity {
  @PrimaryColumn('uuid')
  id: string;

  /** Insertion order: the newest consent per type wins, even within one transaction. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'text' })
  locale: AccountLocale;

  @Column({ type: 'text' })
  type: AgreementType;

  @Column({ type: 'text' })
  version: string;

  @Column({ type: 'boolean' })
  consent: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
