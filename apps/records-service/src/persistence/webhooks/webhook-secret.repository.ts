import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { WebhookEntity } from './webhook.entity';

/** The signing secrets of a subscription as stored (sealed, or plain text from before encryption). */
export type StoredSecrets = Pick<WebhookEntity, 'id' | 'secret' | 'previousSecret'>;
/** Stored secrets as read for re-encryption: whether the previous secret's overlap has ended (by the database clock). */
export type SecretsToReseal = StoredSecrets & { previousExpired: boolean };

/** The signing secrets of webhook subscriptions as re-encryption reads and rewrites them (secret-box). */
@Injectable()
export class WebhookSecretRepository {
  constructor(private readonly tx: Transactions) {}

  private get m() {
    return this.tx.none;
  }

  /**
   * The next `limit` subscriptions after `afterId` (by id) whose secret or previous secret is
   * not sealed with the key `keyId` (plain text, or another key of the ring), each saying
   * whether its previous secret no longer signs (its overlap has ended).
   */
  async secretsToReseal(keyId: string, afterId: string, limit: number): Promise<SecretsToReseal[]> {
    return this.m.query(
      `SELECT id, secret, previous_secret AS "previousSecret",
              NOT coalesce(previous_secret_expires_at > now(), false) AS "previousExpired" FROM webhooks
        WHERE id > $1 AND (NOT starts_with(secret, $2) OR NOT starts_with(previous_secret, $2))
        ORDER BY id LIMIT $3`,
      [afterId, `v1:${keyId}:`, limit],
    );
  }

  /**
   * Stores re-encrypted secrets, in one statement, each only where the row still holds the
   * values they were made from (another instance or a rotation may have changed them since);
   * a previous secret stored as null is cleared with its expiry. Answers how many rows changed.
   * The subscriptions' `updated_at` stays: nothing a caller sees changes.
   */
  async resealSecrets(rows: { from: StoredSecrets; to: StoredSecrets }[]): Promise<number> {
    if (rows.length === 0) return 0;
    const [, count]: [unknown, number] = await this.m.query(
      `UPDATE webhooks w SET secret = r.secret, previous_secret = r.previous,
              previous_secret_expires_at = CASE WHEN r.previous IS NULL THEN NULL ELSE w.previous_secret_expires_at END
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])
              AS r(id, secret, previous, old_secret, old_previous)
        WHERE w.id = r.id AND w.secret = r.old_secret AND w.previous_secret IS NOT DISTINCT FROM r.old_previous`,
      [
        rows.map((r) => r.from.id),
        rows.map((r) => r.to.secret),
        rows.map((r) => r.to.previousSecret),
        rows.map((r) => r.from.secret),
        rows.map((r) => r.from.previousSecret),
      ],
    );
    return count;
  }
}
