import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An invitation to open an account; its code is stored only as a SHA-256 digest. */
@Entity('invitations')
export class InvitationEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId: string;

  /** openId of the identity that sent it. */
  @Column({ name: 'invited_by', type: 'text' })
  invitedBy: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ name: 'first_name', type: 'text', nullable: true })
  firstName: string | null;

  @Column({ name: 'last_name', type: 'text', nullable: true })
  lastName: string | null;

  @Column({ type: 'text', nullable: true })
  phone: string | null;

  @Column({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @Column({ name: 'consumed_by', type: 'uuid', nullable: true })
  consumedBy: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
