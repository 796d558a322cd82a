import { Injectable } from '@nestjs/common';
import type { WebhookDisabledCode } from '@vault/contracts';
import { Transactions, Tx } from '@vault/platform/persistence';
import { preparedQuery } from '../entity-rows';
import { WebhookEntity } from './webhook.entity';

/**
 * Webhook subscriptions: their settings and secrets as the owner's routes change them, the
 * subscriptions an event goes to, and their health (a failing streak, disabling). Their
 * deliveries: WebhookDeliveryRepository; the re-encryption of their secrets:
 * WebhookSecretRepository.
 */
@Injectable()
export class WebhookRepository {
  constructor(private readonly tx: Transactions) {}

  private get m() {
    return this.tx.none;
  }

  list(vaultId: string): Promise<WebhookEntity[]> {
    return this.m.find(WebhookEntity, { where: { vaultId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(vaultId: string, id: string): Promise<WebhookEntity | null> {
    return this.m.findOneBy(WebhookEntity, { vaultId, id });
  }

  async insert(webhook: Partial<WebhookEntity>): Promise<WebhookEntity> {
    await this.m.insert(WebhookEntity, webhook);
    return this.m.findOneByOrFail(WebhookEntity, { id: webhook.id });
  }

  /**
   * Sets a subscription's settings, in one statement writing only their columns: the signing
   * secrets (re-encrypted at start meanwhile), the failing streak and a dispatcher's disabling
   * are never written back as they were read. `enabled` true resumes a disabled subscription
   * (its code, reason, time and failing streak cleared; one disabled because its creator's
   * account was deleted gets `resumedBy` as its creator), false disables an enabled one with
   * `disabledCode` and `disabledReason`, absent leaves it; both are decided on the row as it
   * is when written. `updated_at` moves only when a value changes. Answers the row, or null
   * when it is gone.
   */
  async updateSettings(
    vaultId: string,
    id: string,
    s: Pick<WebhookEntity, 'url' | 'events' | 'description'> & {
      enabled?: boolean;
      disabledCode: WebhookDisabledCode;
      disabledReason: string;
      resumedBy: string;
    },
  ): Promise<WebhookEntity | null> {
    await this.m.query(
      `UPDATE webhooks w
          SET url = $3, events = $4::text[], description = $5::text,
              enabled = coalesce($6::boolean, w.enabled),
              disabled_code = CASE WHEN $6 IS NULL OR $6 = w.enabled THEN w.disabled_code WHEN $6 THEN NULL ELSE $8::text END,
              disabled_reason = CASE WHEN $6 IS NULL OR $6 = w.enabled THEN w.disabled_reason WHEN $6 THEN NULL ELSE $7::text END,
              disabled_at = CASE WHEN $6 IS NULL OR $6 = w.enabled THEN w.disabled_at WHEN $6 THEN NULL ELSE now() END,
              failing_since = CASE WHEN $6 AND NOT w.enabled THEN NULL ELSE w.failing_since END,
              created_by = CASE WHEN $6 AND NOT w.enabled AND w.disabled_code = 'creator_account_deleted' THEN $9
                                ELSE w.created_by END,
              updated_at = CASE WHEN (w.url, w.events, w.description, w.enabled) IS DISTINCT FROM ($3, $4, $5, coalesce($6, w.enabled))
                                THEN now() ELSE w.updated_at END
        WHERE w.vault_id = $1 AND w.id = $2`,
      [vaultId, id, s.url, s.events, s.description, s.enabled ?? null, s.disabledReason, s.disabledCode, s.resumedBy],
    );
    return this.find(vaultId, id);
  }

  /**
   * A new signing secret, the one stored until now kept as the previous secret until
   * `previousExpiresAt`: in one statement taking the current secret as the row holds it when
   * written (a re-encryption at start meanwhile is kept, not undone). Answers the row, or null
   * when it is gone.
   */
  async rotateSecret(vaultId: string, id: string, secret: string, previousExpiresAt: Date): Promise<WebhookEntity | null> {
    await this.m.query(
      `UPDATE webhooks SET previous_secret = secret, secret = $3, previous_secret_expires_at = $4, updated_at = now()
        WHERE vault_id = $1 AND id = $2`,
      [vaultId, id, secret, previousExpiresAt],
    );
    return this.find(vaultId, id);
  }

  async delete(id: string): Promise<void> {
    await this.m.delete(WebhookEntity, { id });
  }

  /**
   * For each event of a batch (its index `i`, a vault it concerns, its type and time), the
   * enabled subscriptions of that vault that take the type (or every type) and existed
   * when the event happened (`created_at` at or before the event's `occurredAt`, both
   * stamped by the service's clock): a subscription never receives older events, even
   * when the stream reaches the fan-out after it was created. One statement for the batch,
   * answering the subscriptions' ids and vaults (what a delivery row needs).
   */
  async subscribersOf(
    events: { i: number; vaultId: string; type: string; occurredAt: string }[],
  ): Promise<{ i: number; webhook: Pick<WebhookEntity, 'id' | 'vaultId'> }[]> {
    if (events.length === 0) return [];
    const [ids, vaults, types, times] = [
      events.map((e) => e.i),
      events.map((e) => e.vaultId),
      events.map((e) => e.type),
      events.map((e) => e.occurredAt),
    ];
    // named: planned once per connection (the fan-out runs it for every batch)
    const rows = await preparedQuery<{ i: number; id: string; vaultId: string }>(
      this.m,
      'webhooks_subscribers_of',
      `SELECT e.i, w.id, w.vault_id AS "vaultId"
         FROM unnest($1::int[], $2::uuid[], $3::text[], $4::timestamptz[]) AS e(i, vault_id, type, occurred_at)
         JOIN webhooks w ON w.vault_id = e.vault_id AND w.enabled
         JOIN vaults v ON v.id = w.vault_id AND v.deleted_at IS NULL
                        AND w.events && ARRAY[e.type, '*'] AND w.created_at <= e.occurred_at`,
      [ids, vaults, types, times],
    );
    return rows.map(({ i, id, vaultId }) => ({ i, webhook: { id, vaultId } }));
  }

  /**
   * A success ends a failing streak. When one was running, the endpoint answers again:
   * the pending deliveries of every enabled subscription of the same tenant to the same
   * origin (scheme, host and port) that wait for a retry (not those in flight) are due
   * now; another tenant's subscriptions to that origin keep their schedule. The claim
   * still takes only each vault's oldest pending event, so the order is kept.
   */
  async markHealthy(webhookId: string): Promise<void> {
    await this.m.query(
      `WITH healed AS (
         UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL
         RETURNING tenant_id, lower(substring(url from '^[^:]+://[^/?#]+')) AS origin)
       UPDATE webhook_deliveries d SET next_attempt_at = now()
         FROM webhooks w, healed
        WHERE w.tenant_id = healed.tenant_id AND w.enabled
          AND lower(substring(w.url from '^[^:]+://[^/?#]+')) = healed.origin
          AND d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at > now()
          AND (d.leased_until IS NULL OR d.leased_until <= now())`,
      [webhookId],
    );
  }

  /** Starts (or continues) a failing streak; returns when it started. */
  async markFailing(webhookId: string): Promise<Date> {
    const [rows]: [{ since: Date }[], number] = await this.m.query(
      `UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = $1
       RETURNING failing_since AS since`,
      [webhookId],
    );
    return rows[0]?.since ?? new Date();
  }

  async disable(webhookId: string, code: WebhookDisabledCode, reason: string): Promise<void> {
    await this.m.query(
      `UPDATE webhooks SET enabled = false, disabled_code = $2, disabled_reason = $3, disabled_at = now(), updated_at = now()
       WHERE id = $1 AND enabled`,
      [webhookId, code, reason.slice(0, 500)],
    );
  }

  /**
   * Disables, in the caller's transaction, every subscription of the tenant that the account
   * `openId` answers for (its creator), on every vault, whether enabled or disabled for
   * another reason: `creator_account_deleted`, with `reason`. Nothing is claimed or created
   * for a disabled subscription from then on (claimRuns, subscribersOf). A subscription
   * already disabled so is left as it is (a repeated deletion changes nothing); one the
   * vault's owner resumed since answers for the owner, no longer for `openId`. `disabled_at`
   * stays for one that was already disabled (deliveries stopped then). Answers the ids.
   */
  async disableOfDeletedCreator(tx: Tx, tenantId: string, openId: string, reason: string): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await tx.query(
      `UPDATE webhooks SET enabled = false, disabled_code = 'creator_account_deleted', disabled_reason = $3,
              disabled_at = CASE WHEN enabled THEN now() ELSE disabled_at END, updated_at = now()
        WHERE tenant_id = $1 AND created_by = $2 AND disabled_code IS DISTINCT FROM 'creator_account_deleted'
       RETURNING id`,
      [tenantId, openId, reason],
    );
    return rows.map((r) => r.id);
  }
}
