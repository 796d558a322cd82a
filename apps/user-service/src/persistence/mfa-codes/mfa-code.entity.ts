import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { MfaType } from '@vault/contracts';

/** A one-time MFA code, stored as a salted SHA-256 digest. */
@Entity('mfa_codes')
export class MfaCodeEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'text' })
  channel: MfaType;

  /** `_id` of the email or phone entry the code was sent to. */
  @Column({ name: 'destination_id', type: 'text' })
  destinationId: string;

  /** `<salt hex>:<sha256 hex>`. */
  @Column({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Set when used, when superseded by a newer code, or when the attempts ran out. */
  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
