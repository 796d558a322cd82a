import { MigrationInterface, QueryRunner } from 'typeorm';

/** Identities of deleted accounts (the user module's account.deleted.v1): no token is issued to them. */
export class ClosedIdentities1763800000200 implements MigrationInterface {
  name = 'ClosedIdentities1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE closed_identities (
        tenant_id varchar(128) NOT NULL,
        open_id varchar(300) NOT NULL,
        account_id uuid NOT NULL,
        closed_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, open_id)
      )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE closed_identities`);
  }
}
