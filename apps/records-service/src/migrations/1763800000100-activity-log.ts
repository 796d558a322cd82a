import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Activity log entries, and the NOTIFY trigger that wakes the outbox relay. */
export class ActivityLog1763800000100 implements MigrationInterface {
  name = 'ActivityLog1763800000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE activity_log_entries (
        event_id uuid NOT NULL,
        vault_id uuid NOT NULL,
        tenant_id text NOT NULL,
        subject text NOT NULL,
        entity text NOT NULL,
        event_type text NOT NULL,
        action text NOT NULL,
        actor_open_id text NOT NULL,
        actor_name text NOT NULL,
        vault_name text NOT NULL,
        record_id uuid,
        record_name text,
        file_name text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        occurred_at timestamptz NOT NULL,
        logged_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, vault_id)
      )`);
    await q.query(`CREATE INDEX activity_log_vault_time_idx ON activity_log_entries (vault_id, occurred_at DESC, event_id DESC)`);
    await q.query(`
      CREATE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_events', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
      FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS outbox_events_notify ON outbox_events`);
    await q.query(`DROP FUNCTION IF EXISTS outbox_events_notify()`);
    await q.query(`DROP TABLE IF EXISTS activity_log_entries`);
  }
}
