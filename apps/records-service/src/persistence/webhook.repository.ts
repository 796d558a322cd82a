import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RecordEntity } from './record.entity';
import { Transactions } from './transactions';
import { VaultEntity } from './vault.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

/** A delivery to create for a matching subscription (fan-out of one event). */
export type NewDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'webhookId' | 'vaultId' | 'eventId' | 'eventType' | 'streamSeq' | 'body'
>;

/** The outcome of one attempt, as stored on its delivery. */
export interface AttemptOutcome {
  status: WebhookDeliveryEntity['status'];
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  /** When the next attempt is due (pending), else null. */
  nextAttemptAt: Date | null;
}

/**
 * Webhook subscriptions and their deliveries: the subscriptions an event goes to,
 * the deliveries due (claimed with a lease, oldest event of a subscription and vault
 * first) and the outcome of each attempt. Also reads the resources an event is about,
 * for its envelope.
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

  async save(webhook: WebhookEntity): Promise<WebhookEntity> {
    return this.m.save(WebhookEntity, webhook);
  }

  async delete(id: string): Promise<void> {
    await this.m.delete(WebhookEntity, { id });
  }

  /**
   * For each event of a batch (its index `i`, a vault it concerns, its type and time), the
   * enabled subscriptions of that vault that take the type (or every type) and existed
   * when the event happened: a subscription never receives older events, even when the
   * stream reaches the fan-out after it was created. One statement for the batch.
   */
  async subscribersOf(
    events: { i: number; vaultId: string; type: string; occurredAt: string }[],
  ): Promise<{ i: number; webhook: WebhookEntity }[]> {
    if (events.length === 0) return [];
    const [ids, vaults, types, times] = [
      events.map((e) => e.i),
      events.map((e) => e.vaultId),
      events.map((e) => e.type),
      events.map((e) => e.occurredAt),
    ];
    const rows: { i: number; id: string }[] = await this.m.query(
      `SELECT e.i, w.id
         FROM unnest($1::int[], $2::uuid[], $3::text[], $4::timestamptz[]) AS e(i, vault_id, type, occurred_at)
         JOIN webhooks w ON w.vault_id = e.vault_id AND w.enabled
                        AND w.events && ARRAY[e.type, '*'] AND w.created_at <= e.occurred_at`,
      [ids, vaults, types, times],
    );
    const byId = await this.webhooksByIds([...new Set(rows.map((r) => r.id))]);
    return rows.flatMap((r) => {
      const webhook = byId.get(r.id);
      return webhook ? [{ i: r.i, webhook }] : [];
    });
  }

  /** Inserts deliveries; one that exists already (a redelivered event) is left as it is. */
  async insertDeliveries(rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.m
      .createQueryBuilder()
      .insert()
      .into(WebhookDeliveryEntity)
      .values(rows.map((r) => ({ ...r, status: 'pending' as const, nextAttemptAt: () => 'now()' })))
      .orIgnore()
      .execute();
  }

  /** A page of a subscription's deliveries, newest event first, with the number of all. */
  deliveries(webhookId: string, offset: number, limit: number): Promise<[WebhookDeliveryEntity[], number]> {
    return this.m.findAndCount(WebhookDeliveryEntity, {
      where: { webhookId },
      order: { createdAt: 'DESC', streamSeq: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  findDelivery(webhookId: string, id: string): Promise<WebhookDeliveryEntity | null> {
    return this.m.findOneBy(WebhookDeliveryEntity, { webhookId, id });
  }

  /** Due again now with a fresh retry schedule (attempts from 0). */
  async requeue(id: string): Promise<void> {
    await this.m.update(
      WebhookDeliveryEntity,
      { id },
      { status: 'pending', attempts: 0, nextAttemptAt: () => 'now()', deliveredAt: null },
    );
  }

  /**
   * Claims up to `limit` due deliveries of enabled subscriptions: for each subscription
   * and vault only its oldest pending event (so events keep their order), of the events
   * up to stream sequence `horizon` (beyond it an earlier event may still be stored), each leased
   * for `leaseMs` (another dispatcher skips it; a crashed one's lease runs out and the
   * delivery is attempted again) and its attempt counted. The heads (the oldest pending
   * event of each subscription and vault) are found by walking the pending-order index
   * one subscription and vault at a time, so a claim costs about one index descent per
   * pair whatever the backlog (a scan of the due rows with a check per row took over a
   * second at 120,000 pending deliveries).
   */
  async claimDue(limit: number, leaseMs: number, horizon: number): Promise<WebhookDeliveryEntity[]> {
    // An UPDATE answers [rows, count].
    const [rows]: [{ id: string }[], number] = await this.m.query(
      `UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1,
              next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
              leased_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE d.id IN (
          WITH RECURSIVE heads AS (
            (SELECT e.webhook_id, e.vault_id, e.stream_seq FROM webhook_deliveries e
              WHERE e.status = 'pending' ORDER BY e.webhook_id, e.vault_id, e.stream_seq LIMIT 1)
            UNION ALL
            SELECT n.webhook_id, n.vault_id, n.stream_seq FROM heads h
              CROSS JOIN LATERAL (
                SELECT e.webhook_id, e.vault_id, e.stream_seq FROM webhook_deliveries e
                 WHERE e.status = 'pending' AND (e.webhook_id, e.vault_id) > (h.webhook_id, h.vault_id)
                 ORDER BY e.webhook_id, e.vault_id, e.stream_seq LIMIT 1) n)
          SELECT c.id FROM heads
            JOIN webhook_deliveries c ON c.webhook_id = heads.webhook_id AND c.vault_id = heads.vault_id
                                     AND c.stream_seq = heads.stream_seq AND c.status = 'pending'
            JOIN webhooks w ON w.id = c.webhook_id AND w.enabled
           WHERE c.next_attempt_at <= now() AND c.stream_seq <= $3
           ORDER BY c.next_attempt_at
           LIMIT $1
           FOR UPDATE OF c SKIP LOCKED)
        RETURNING d.id`,
      [limit, leaseMs, horizon],
    );
    if (rows.length === 0) return [];
    return this.m
      .createQueryBuilder(WebhookDeliveryEntity, 'd')
      .where('d.id IN (:...ids)', { ids: rows.map((r) => r.id) })
      .getMany();
  }

  /** The subscriptions of claimed deliveries, by id. */
  async webhooksByIds(ids: string[]): Promise<Map<string, WebhookEntity>> {
    if (ids.length === 0) return new Map();
    const rows = await this.m
      .createQueryBuilder(WebhookEntity, 'w')
      .where('w.id IN (:...ids)', { ids })
      .getMany();
    return new Map(rows.map((w) => [w.id, w]));
  }

  async recordAttempt(id: string, o: AttemptOutcome): Promise<void> {
    await this.m.update(
      WebhookDeliveryEntity,
      { id },
      {
        status: o.status,
        lastStatusCode: o.statusCode,
        lastError: o.error,
        lastResponseExcerpt: o.excerpt,
        nextAttemptAt: o.nextAttemptAt,
        leasedUntil: null,
        deliveredAt: o.status === 'delivered' ? () => 'now()' : null,
      },
    );
  }

  /**
   * A success ends a failing streak. When one was running, the endpoint answers again:
   * the pending deliveries of every enabled subscription to the same origin (scheme, host
   * and port) that wait for a retry (not those in flight) are due now. The claim still
   * takes only each vault's oldest pending event, so the order is kept.
   */
  async markHealthy(webhookId: string): Promise<void> {
    await this.m.query(
      `WITH healed AS (
         UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL
         RETURNING lower(substring(url from '^[^:]+://[^/?#]+')) AS origin)
       UPDATE webhook_deliveries d SET next_attempt_at = now()
         FROM webhooks w, healed
        WHERE lower(substring(w.url from '^[^:]+://[^/?#]+')) = healed.origin AND w.enabled
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

  async disable(webhookId: string, reason: string): Promise<void> {
    await this.m.query(
      `UPDATE webhooks SET enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now()
       WHERE id = $1 AND enabled`,
      [webhookId, reason.slice(0, 500)],
    );
  }

  /** Vaults by id, in one statement (those not found are absent). */
  async vaults(ids: string[]): Promise<Map<string, VaultEntity>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.m.findBy(VaultEntity, { id: In(ids) })).map((v) => [v.id, v]));
  }

  /** Records by id, in one statement (those not found are absent). */
  async records(ids: string[]): Promise<Map<string, RecordEntity>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.m.findBy(RecordEntity, { id: In(ids) })).map((r) => [r.id, r]));
  }
}
