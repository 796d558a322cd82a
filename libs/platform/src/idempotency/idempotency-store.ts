import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/** How long a key is remembered: a repeat within this window replays, later it is a new request. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/**
 * An in-flight claim lives this long unless its request renews it (every third of it):
 * a process that died mid-request frees its keys after at most this time.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;

/** Whose key it is: keys are scoped to tenant and caller. */
export interface KeyScope {
  tenantId: string;
  caller: string;
  key: string;
}

/** An answer kept for replays. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface KeyRow {
  fingerprint: string | null;
  state: 'in_flight' | 'completed';
  answer?: StoredAnswer;
}

export type Claim = { kind: 'claimed'; token: string } | { kind: 'existing'; row: KeyRow };

/** Where the key statements run: the data source (autocommit) or a transaction's manager. */
export type KeyStore = DataSource | EntityManager;

const PK = 'tenant_id = $1 AND caller = $2 AND key = $3';

/**
 * Claims a key (autocommit, before the handler runs): inserts it in flight, or takes
 * over a row whose window ended or whose in-flight lease lapsed. Otherwise returns the
 * row as it stands.
 */
export async function claimKey(ds: KeyStore, s: KeyScope, fingerprint: string | null): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = randomUUID();
    const claimed: Array<{ claim: string }> = await ds.query(
      `INSERT INTO idempotency_keys AS k (tenant_id, caller, key, fingerprint, state, claim, lease_until, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_flight', $5, now() + $6 * interval '1 millisecond', now(), now() + $7 * interval '1 hour')
       ON CONFLICT (tenant_id, caller, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', claim = EXCLUDED.claim,
             lease_until = EXCLUDED.lease_until, status = NULL, headers = NULL, body = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE k.expires_at <= now() OR (k.state = 'in_flight' AND k.lease_until <= now())
       RETURNING claim`,
      [s.tenantId, s.caller, s.key, fingerprint, token, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_WINDOW_HOURS],
    );
    if (claimed[0]?.claim === token) return { kind: 'claimed', token };
    const rows: Array<{
      fingerprint: string | null;
      state: KeyRow['state'];
      status: number | null;
      headers: Record<string, string> | null;
      body: string | null;
    }> = await ds.query(`SELECT fingerprint, state, status, headers, body FROM idempotency_keys WHERE ${PK}`, [
      s.tenantId,
      s.caller,
      s.key,
    ]);
    const row = rows[0];
    if (!row) continue; // released in between: claim again
    return {
      kind: 'existing',
      row: {
        fingerprint: row.fingerprint,
        state: row.state,
        answer: row.status === null ? undefined : { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' },
      },
    };
  }
  throw new Error('the idempotency key could not be claimed');
}

/** Keeps an in-flight claim alive. */
export async function renewClaim(ds: KeyStore, s: KeyScope, token: string): Promise<void> {
  await ds.query(
    `UPDATE idempotency_keys SET lease_until = now() + $5 * interval '1 millisecond'
      WHERE ${PK} AND claim = $4 AND state = 'in_flight'`,
    [s.tenantId, s.caller, s.key, token, IDEMPOTENCY_LEASE_MS],
  );
}

/**
 * Stores the answer of a claimed key, through `m`: inside the request's transaction for
 * a success (so it commits with the change), on its own for a refusal that changed
 * nothing. False when the claim was lost (its lease lapsed and another request took it).
 * With `keepClaim` the answer is replayed from now on, but the request that claimed the
 * key may still replace it (completeKey again) or forget it (releaseKey) once it ends:
 * for a request whose change commits before its final answer is known.
 */
export async function completeKey(
  m: KeyStore,
  s: KeyScope,
  token: string,
  fingerprint: string | null,
  answer: StoredAnswer,
  opts: { keepClaim?: boolean } = {},
): Promise<boolean> {
  const result: [unknown[], number] = await m.query(
    `UPDATE idempotency_keys
        SET state = 'completed', claim = CASE WHEN $9 THEN claim END, lease_until = NULL,
            fingerprint = COALESCE($5, fingerprint), status = $6, headers = $7, body = $8
      WHERE ${PK} AND claim = $4`,
    [
      s.tenantId,
      s.caller,
      s.key,
      token,
      fingerprint,
      answer.status,
      JSON.stringify(answer.headers),
      answer.body,
      opts.keepClaim === true,
    ],
  );
  return result[1] === 1;
}

/** Frees a claimed key (the request failed in a way that must not be replayed). */
export async function releaseKey(ds: KeyStore, s: KeyScope, token: string): Promise<void> {
  await ds.query(`DELETE FROM idempotency_keys WHERE ${PK} AND claim = $4`, [s.tenantId, s.caller, s.key, token]);
}

const PURGE_BATCH = 5000;

/** Deletes keys whose window has ended, a batch at a time; returns how many. */
export async function purgeExpiredIdempotencyKeys(ds: DataSource): Promise<number> {
  const [{ present }]: Array<{ present: boolean }> = await ds.query(
    `SELECT to_regclass('idempotency_keys') IS NOT NULL AS present`,
  );
  if (!present) return 0;
  let total = 0;
  for (;;) {
    const result: [unknown[], number] = await ds.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${PURGE_BATCH})`,
    );
    total += result[1];
    if (result[1] < PURGE_BATCH) return total;
  }
}
