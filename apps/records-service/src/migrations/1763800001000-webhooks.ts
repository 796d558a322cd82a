import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook subscriptions of vaults and their delivery log (docs/webhooks.md): one
 * delivery per event and subscription (the event id is its webhook-id), delivered
 * in stream order per subscription and vault.
 */
export class Webhooks1763800001000 implements MigrationInterface {
  name = 'Webhooks1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        vault_id uuid NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        description text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        disabled_at timestamptz,
        failing_since timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_vault_idx ON webhooks (vault_id, created_at)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        vault_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        stream_seq bigint NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error text,
        last_response_excerpt text,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX webhook_deliveries_event_uq ON webhook_deliveries (webhook_id, event_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(
      `CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (webhook_id, vault_id, stream_seq) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
