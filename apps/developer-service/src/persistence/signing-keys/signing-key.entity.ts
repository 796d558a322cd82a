import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { JWK } from 'jose';

/**
 * A token signing key pair; at most one is active (partial unique index). Published in
 * the JWKS from its creation (before `activatesAt`, when it starts signing) until its
 * last token has expired after `retiredAt`.
 */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  kid!: string;

  @Column({ type: 'varchar', length: 16 })
  alg!: string;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk!: JWK;

  /** The private JWK as JSON, or its AES-256-GCM envelope when `encrypted`. */
  @Column({ name: 'private_jwk', type: 'text' })
  privateJwk!: string;

  @Column({ type: 'boolean', default: false })
  encrypted!: boolean;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** When this key starts signing (every replica switches at this instant). */
  @Column({ name: 'activates_at', type: 'timestamptz', default: () => 'now()' })
  activatesAt!: Date;

  /** When the next key took over; the key leaves the JWKS after the token lifetime and clock skew. */
  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;
}
