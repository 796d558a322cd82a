import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Activity-log pages at a cost that does not grow with the log: an index in the exact
 * order of the pages (occurred_at, logged_at, event_id, newest first), one per sender
 * for the senderOpenId filter, and entry counts per vault, entity and event type that
 * the writer keeps in the statement that inserts the entries.
 */
export class ActivityLogPaging1763800000400 implements MigrationInterface {
  name = 'ActivityLogPaging1763800000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS activity_log_vault_time_idx`);
    await q.query(`
      CREATE INDEX activity_log_vault_order_idx
      ON activity_log_entries (vault_id, occurred_at DESC, logged_at DESC, event_id DESC)`);
    await q.query(`
      CREATE INDEX activity_log_vault_sender_idx
      ON activity_log_entries (vault_id, actor_open_id, occurred_at DESC, logged_at DESC, event_id DESC)`);
    await q.query(`
      CREATE TABLE activity_log_counts (
        vault_id uuid NOT NULL,
        entity text NOT NULL,
        event_type text NOT NULL,
        total bigint NOT NULL CHECK (total >= 0),
        PRIMARY KEY (vault_id, entity, event_type)
      )`);
    await q.query(`
      INSERT INTO activity_log_counts (vault_id, entity, event_type, total)
      SELECT vault_id, entity, event_type, count(*) FROM activity_log_entries GROUP BY 1, 2, 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE activity_log_counts`);
    await q.query(`DROP INDEX activity_log_vault_sender_idx`);
    await q.query(`DROP INDEX activity_log_vault_order_idx`);
    await q.query(`CREATE INDEX activity_log_vault_time_idx ON activity_log_entries (vault_id, occurred_at DESC, event_id DESC)`);
  }
}
