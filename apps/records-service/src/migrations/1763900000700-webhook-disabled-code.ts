import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a subscription is disabled, as a stable code beside the reason in words
 * (docs/webhooks.md, Disabled subscriptions), filled in for the subscriptions disabled
 * before from their reason; the subscriptions an account created, found by tenant and
 * creator when the account is deleted; and the subscriptions of accounts deleted before
 * (inactive in the account directory) disabled as a deletion from now on disables them.
 */
export class WebhookDisabledCode1763900000700 implements MigrationInterface {
  name = 'WebhookDisabledCode1763900000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks ADD COLUMN disabled_code text
        CHECK (disabled_code IN ('receiver_gone', 'deliveries_failing', 'disabled_by_owner', 'creator_account_deleted'))`);
    await q.query(`
      UPDATE webhooks SET disabled_code = CASE
          WHEN disabled_reason LIKE 'the receiver answered 410%' THEN 'receiver_gone'
          WHEN disabled_reason LIKE 'deliveries failing since%' THEN 'deliveries_failing'
          ELSE 'disabled_by_owner' END
        WHERE NOT enabled`);
    await q.query(`CREATE INDEX webhooks_creator_idx ON webhooks (tenant_id, created_by)`);
    await q.query(`
      UPDATE webhooks w SET enabled = false, disabled_code = 'creator_account_deleted',
             disabled_reason = 'the account that created it was deleted; the vault''s owner may resume it (taking it over) or delete it',
             disabled_at = CASE WHEN w.enabled THEN now() ELSE w.disabled_at END, updated_at = now()
        FROM account_directory a
       WHERE a.tenant_id = w.tenant_id AND a.open_id = w.created_by AND NOT a.active`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks_creator_idx`);
    await q.query(`ALTER TABLE webhooks DROP COLUMN disabled_code`);
  }
}
