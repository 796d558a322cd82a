import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { FamilyRevocationReason } from './refresh-token.entity';

/** A new family: the binding of every token that descends from one sign-in. */
export interface NewFamily {
  id: string;
  tenantId: string;
  clientId: string;
  userId: string;
  openId: string;
  /** Absolute lifetime from now. */
  ttlSeconds: number;
  /** The sign-in's `auth_time` (seconds since the epoch). */
  signedInAt: number;
}

/** A new token of a family; it expires after `ttlSeconds` or with its family, whichever comes first. */
export interface NewToken {
  tokenHash: Buffer;
  familyId: string;
  accessTokenId: string;
  ttlSeconds: number;
}

/** A presented token and its family, locked, with the database clock's verdicts. */
export interface LockedToken {
  familyId: string;
  tenantId: string;
  clientId: string;
  userId: string;
  openId: string;
  spent: boolean;
  revoked: boolean;
  /** The token's or its family's lifetime is over. */
  expired: boolean;
  /** The family's sign-in (seconds since the epoch; its `created_at` when stored before it was kept): the `auth_time` of every token it issues. */
  signedInAt: number;
}

/** Most expired families one prune deletes (a prune runs at each sign-in). */
const PRUNE_BATCH = 100;

/** Refresh-token families and their tokens; times are the database's clock. */
@Injectable()
export class RefreshTokenRepository {
  constructor(private readonly ds: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  async insertFamily(tx: EntityManager, f: NewFamily): Promise<void> {
    await tx.query(
      `INSERT INTO refresh_token_families (id, tenant_id, client_id, user_id, open_id, expires_at, signed_in_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7)`,
      [f.id, f.tenantId, f.clientId, f.userId, f.openId, f.ttlSeconds, f.signedInAt],
    );
  }

  async insertToken(tx: EntityManager, t: NewToken): Promise<void> {
    await tx.query(
      `INSERT INTO refresh_tokens (token_hash, family_id, access_token_id, expires_at)
       SELECT $1, f.id, $3, LEAST(now() + make_interval(secs => $4), f.expires_at)
       FROM refresh_token_families f WHERE f.id = $2`,
      [t.tokenHash, t.familyId, t.accessTokenId, t.ttlSeconds],
    );
  }

  /**
   * The token with this hash and its family, both rows locked until the transaction ends:
   * two uses of one token queue here, and the second sees the first one's spending.
   */
  async lockByHash(tx: EntityManager, tokenHash: Buffer): Promise<LockedToken | undefined> {
    const rows: Array<Record<string, unknown>> = await tx.query(
      `SELECT f.id AS family_id, f.tenant_id, f.client_id, f.user_id, f.open_id,
              t.spent_at IS NOT NULL AS spent,
              f.revoked_at IS NOT NULL AS revoked,
              (t.expires_at <= now() OR f.expires_at <= now()) AS expired,
              COALESCE(f.signed_in_at, floor(extract(epoch FROM f.created_at))::bigint) AS signed_in_at
       FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
       WHERE t.token_hash = $1
       FOR UPDATE`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      familyId: String(r['family_id']),
      tenantId: String(r['tenant_id']),
      clientId: String(r['client_id']),
      userId: String(r['user_id']),
      openId: String(r['open_id']),
      spent: r['spent'] === true,
      revoked: r['revoked'] === true,
      expired: r['expired'] === true,
      signedInAt: Number(r['signed_in_at']),
    };
  }

  async markSpent(tx: EntityManager, tokenHash: Buffer): Promise<void> {
    await tx.query(`UPDATE refresh_tokens SET spent_at = now() WHERE token_hash = $1`, [tokenHash]);
  }

  async revokeFamily(tx: EntityManager, familyId: string, reason: FamilyRevocationReason): Promise<void> {
    await tx.query(
      `UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = $2
       WHERE id = $1 AND revoked_at IS NULL`,
      [familyId, reason],
    );
  }

  /** Revokes every live family of an identity in a tenant, all applications; returns how many. */
  async revokeIdentity(
    tx: EntityManager,
    identity: { tenantId: string; openId: string },
    reason: FamilyRevocationReason,
  ): Promise<number> {
    const rows: Array<{ n: number }> = await tx.query(
      `WITH revoked AS (
         UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = $3
         WHERE tenant_id = $1 AND open_id = $2 AND revoked_at IS NULL
         RETURNING id)
       SELECT count(*)::int AS n FROM revoked`,
      [identity.tenantId, identity.openId, reason],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * A logout of the access token `accessTokenId`, at `loggedOutAt`: revokes every family of
   * the same identity and application started before then (a sign-in after the logout keeps
   * its family). Nothing when no refresh token was answered with that access token.
   */
  async revokeForLogout(accessTokenId: string, loggedOutAt: Date): Promise<number> {
    const rows: Array<{ n: number }> = await this.ds.query(
      `WITH logged_out AS (
         SELECT f.tenant_id, f.client_id, f.open_id
         FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
         WHERE t.access_token_id = $1),
       revoked AS (
         UPDATE refresh_token_families f SET revoked_at = now(), revoked_reason = 'logout'
         FROM logged_out l
         WHERE f.tenant_id = l.tenant_id AND f.client_id = l.client_id AND f.open_id = l.open_id
           AND f.revoked_at IS NULL AND f.created_at <= $2
         RETURNING f.id)
       SELECT count(*)::int AS n FROM revoked`,
      [accessTokenId, loggedOutAt],
    );
    return rows[0]?.n ?? 0;
  }

  /** Deletes a batch of families whose absolute lifetime is over (their tokens with them). */
  async pruneExpired(): Promise<void> {
    await this.ds.query(
      `DELETE FROM refresh_token_families WHERE id IN (
         SELECT id FROM refresh_token_families WHERE expires_at <= now() LIMIT ${PRUNE_BATCH})`,
    );
  }
}
