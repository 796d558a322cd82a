import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Why a family was revoked (the `revoked_reason` column). */
export type FamilyRevocationReason = 'reuse' | 'account_deleted' | 'password_changed' | 'logout';

/**
 * The refresh tokens descended from one sign-in, bound to a tenant, an application and an
 * organisation user. Revoking the family refuses every token of it; it ends at `expiresAt`
 * (the absolute lifetime) however often its tokens were used.
 */
@Entity({ name: 'refresh_token_families' })
export class RefreshTokenFamilyEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @Column({ name: 'client_id', type: 'varchar', length: 128 })
  clientId!: string;

  /** The organisation user; the access tokens' `sub` is `openId`. */
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'open_id', type: 'varchar', length: 300 })
  openId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The sign-in's `auth_time` (seconds since the epoch); null for families stored before it was kept. */
  @Column({ name: 'signed_in_at', type: 'bigint', nullable: true })
  signedInAt!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'revoked_reason', type: 'varchar', length: 32, nullable: true })
  revokedReason!: FamilyRevocationReason | null;
}

/** One refresh token of a family, known by its SHA-256 only; spent once used. */
@Entity({ name: 'refresh_tokens' })
export class RefreshTokenEntity {
  /** SHA-256 of the token's text (the token itself is never stored). */
  @PrimaryColumn({ name: 'token_hash', type: 'bytea' })
  tokenHash!: Buffer;

  @Column({ name: 'family_id', type: 'uuid' })
  familyId!: string;

  /** `jti` of the access token answered together with this refresh token. */
  @Column({ name: 'access_token_id', type: 'uuid' })
  accessTokenId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  /** When it was used (and a successor answered); a second use revokes the family. */
  @Column({ name: 'spent_at', type: 'timestamptz', nullable: true })
  spentAt!: Date | null;
}
