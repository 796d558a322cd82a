import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claim of a place for one more live record in a vault as a function that refuses by
 * raising (SQLSTATE VR001) rather than by updating no row: a create sends it together with
 * its COMMIT in one message (Transactions.runCommittingWith), and a refusal must keep that
 * COMMIT from running. The UPDATE is the one the service ran before, a conditional increment
 * of the vault's counter under its row lock (docs/architecture.md).
 */
export class ClaimRecordPlace1764600000000 implements MigrationInterface {
  name = 'ClaimRecordPlace1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION vault_claim_record_place(p_vault uuid, p_max bigint) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE vaults SET live_records = live_records + 1 WHERE id = p_vault AND live_records < p_max;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'vault % holds as many live records as its plan allows (%)', p_vault, p_max
            USING ERRCODE = 'VR001';
        END IF;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION vault_claim_record_place(uuid, bigint)`);
  }
}
