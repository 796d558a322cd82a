import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The number of live (not DELETED) records of each vault, on the vault row. A create
 * claims its place itself, as the last statement of its transaction (a conditional
 * increment that is also the quota check, so the row is locked only until the commit);
 * a trigger follows every status change, move and delete of a record.
 */
export class LiveRecordCounter1763800000300 implements MigrationInterface {
  name = 'LiveRecordCounter1763800000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE vaults ADD COLUMN live_records integer NOT NULL DEFAULT 0 CHECK (live_records >= 0)`);
    await q.query(`
      UPDATE vaults v SET live_records = c.n
      FROM (SELECT vault_id, count(*)::int AS n FROM records WHERE status <> 'DELETED' GROUP BY vault_id) c
      WHERE c.vault_id = v.id`);
    await q.query(`
      CREATE FUNCTION records_count_live() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status <> 'DELETED' THEN
          UPDATE vaults SET live_records = live_records - 1 WHERE id = OLD.vault_id;
        END IF;
        IF TG_OP = 'UPDATE' AND NEW.status <> 'DELETED' THEN
          UPDATE vaults SET live_records = live_records + 1 WHERE id = NEW.vault_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER records_count_live AFTER DELETE OR UPDATE OF status, vault_id ON records
      FOR EACH ROW EXECUTE FUNCTION records_count_live()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER records_count_live ON records`);
    await q.query(`DROP FUNCTION records_count_live()`);
    await q.query(`ALTER TABLE vaults DROP COLUMN live_records`);
  }
}
