import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The table of Idempotency-Key claims and stored answers (docs/retries-and-concurrency.md).
 * Every service with idempotent routes adds this class to its own migration list, so the
 * table lives in the same database as the changes it records.
 */
export class IdempotencyKeys1763900000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        tenant_id   text NOT NULL,
        caller      text NOT NULL,
        key         text NOT NULL,
        fingerprint text,
        state       text NOT NULL CHECK (state IN ('in_flight', 'completed')),
        claim       uuid,
        lease_until timestamptz,
        status      integer,
        headers     jsonb,
        body        text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, caller, key),
        CHECK ((state = 'in_flight') = (claim IS NOT NULL AND lease_until IS NOT NULL)),
        CHECK ((state = 'completed') = (status IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS idempotency_keys`);
  }
}
