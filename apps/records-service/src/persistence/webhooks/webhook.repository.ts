import { Injectable } from '@nestjs/common';
import type { WebhookDisabledCode } from '@vault/contracts';
import { In } from 'typeorm';
import { RecordEntity } from '../records/record.entity';
import { Transactions, Tx } from '../transactions';
import { VaultEntity } from '../vaults/vault.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

/** A delivery to create for a matching subscription (fan-out of one event). */
export type NewDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'webhookId' | 'vaultId' | 'eventId' | 'eventType' | 'streamSeq' | 'body'
>;

/** A delivery claimed for an attempt (its attempt already counted). */
export type ClaimedDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'webhookId' | 'vaultId' | 'eventId' | 'streamSeq' | 'body' | 'attempts'
>;

/** The signing secrets of a subscription as stored (sealed, or plain text from before encryption). */
export type StoredSecrets = Pick<WebhookEntity, 'id' | 'secret' | 'previousSecret'>;
/** Stored secrets as read for re-encryption: whether the previous secret's overlap has ended (by the database clock). */
export type SecretsToReseal = StoredSecrets & { previousExpired: boolean };

/** The outcome of one attempt, as stored on its delivery. */
export interface AttemptOutcome {
  status: WebhookDeliveryEntity['status'];
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  /** When the next attempt is due (pending), else null. */
  nextAttemptAt: Date | null;
  /** Milliseconds between the answer and the storing of the outcome (delivered_at is the answer's time). */
  agoMs: number;
}

/** The values of each named field over rows, one array per field (for `unnest`). */
const columns = <T>(rows: T[], fields: (keyof T)[]) => fields.map((f) => rows.map((r) => r[f]));

/**
 * Webhook subscriptions and their deliveries: the subscriptions an event goes to,
 * the deliveries due (claimed in runs with a lease, oldest event of a subscription and
 * vault first) and the outcomes of a run's attempts. Also reads the resources an event is about,
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
    const rows: { i: number; id: string; vaultId: string }[] = await this.m.query(
      `SELECT e.i, w.id, w.vault_id AS "vaultId"
         FROM unnest($1::int[], $2::uuid[], $3::text[], $4::timestamptz[]) AS e(i, vault_id, type, occurred_at)
         JOIN webhooks w ON w.vault_id = e.vault_id AND w.enabled
                        AND w.events && ARRAY[e.type, '*'] AND w.created_at <= e.occurred_at`,
      [ids, vaults, types, times],
    );
    return rows.map(({ i, id, vaultId }) => ({ i, webhook: { id, vaultId } }));
  }

  /** Inserts deliveries; one that exists already (a redelivered event) is left as it is. */
  async insertDeliveries(rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.m.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status, next_attempt_at)
       SELECT r.*, 'pending', now()
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::bigint[], $7::text[])
              AS r(id, webhook_id, vault_id, event_id, event_type, stream_seq, body)
       ON CONFLICT DO NOTHING`,
      columns(rows, ['id', 'webhookId', 'vaultId', 'eventId', 'eventType', 'streamSeq', 'body']),
    );
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

  /**
   * Makes a subscription's delivery due again now with a fresh retry schedule (attempts
   * from 0), unless an attempt holds it (pending with a lease that has not run out): the
   * lease is checked and the row changed in one statement, which waits for a claim taking
   * the row at the same moment and then sees its lease. False when nothing was changed
   * (no such delivery, or it is in flight).
   */
  async requeue(webhookId: string, id: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.m.query(
      `UPDATE webhook_deliveries
          SET status = 'pending', attempts = 0, next_attempt_at = now(), delivered_at = NULL
        WHERE webhook_id = $1 AND id = $2
          AND NOT (status = 'pending' AND leased_until IS NOT NULL AND leased_until > now())`,
      [webhookId, id],
    );
    return count === 1;
  }

  /**
   * Claims runs of due deliveries of enabled subscriptions, for up to `limit` subscription
   * and vault pairs: each run is the pair's oldest pending event (so events keep their
   * order) and up to `runMax - 1` of its next pending events in stream order, as long as
   * each is due; only events up to stream sequence `horizon` (beyond it an earlier event
   * may still be stored). Every delivery of a run has its attempt counted and is leased
   * (another dispatcher skips it; a crashed one's lease runs out and it is attempted
   * again) for `attemptMs + slackMs`, all alike: the run's outcomes are stored when it
   * ends, so the head's lease must outlast the whole run (the dispatcher starts no
   * attempt later than half the slack after the claim). The heads (the oldest pending event
   * of each subscription and vault) are found by walking the pending-order index one
   * subscription and vault at a time, so a claim costs about one index descent per pair
   * whatever the backlog (a scan of the due rows with a check per row took over a second
   * at 120,000 pending deliveries). Heads are locked with SKIP LOCKED; a run's later events
   * are only ever leased with their head, so holding the head's lock keeps them to this claim.
   * Answers each run in order.
   */
  async claimRuns(
    o: { limit: number; runMax: number; attemptMs: number; slackMs: number },
    horizon: number,
  ): Promise<ClaimedDelivery[][]> {
    // An UPDATE answers [rows, count].
    const [rows]: [(ClaimedDelivery & { headId: string })[], number] = await this.m.query(
      `WITH RECURSIVE heads AS (
         (SELECT e.webhook_id, e.vault_id, e.stream_seq FROM webhook_deliveries e
           WHERE e.status = 'pending' ORDER BY e.webhook_id, e.vault_id, e.stream_seq LIMIT 1)
         UNION ALL
         SELECT n.webhook_id, n.vault_id, n.stream_seq FROM heads h
           CROSS JOIN LATERAL (
             SELECT e.webhook_id, e.vault_id, e.stream_seq FROM webhook_deliveries e
              WHERE e.status = 'pending' AND (e.webhook_id, e.vault_id) > (h.webhook_id, h.vault_id)
              ORDER BY e.webhook_id, e.vault_id, e.stream_seq LIMIT 1) n),
       claimed AS (
         SELECT c.id, c.webhook_id, c.vault_id, c.stream_seq FROM heads
           JOIN webhook_deliveries c ON c.webhook_id = heads.webhook_id AND c.vault_id = heads.vault_id
                                    AND c.stream_seq = heads.stream_seq AND c.status = 'pending'
           JOIN webhooks w ON w.id = c.webhook_id AND w.enabled
          WHERE c.next_attempt_at <= now() AND c.stream_seq <= $3
          ORDER BY c.next_attempt_at
          LIMIT $1
          FOR UPDATE OF c SKIP LOCKED),
       runs AS (
         SELECT claimed.id AS head_id, claimed.id FROM claimed
         UNION ALL
         SELECT claimed.id, t.id FROM claimed
           CROSS JOIN LATERAL (
             SELECT n.id FROM (
               SELECT e.id, bool_and(e.next_attempt_at <= now()) OVER w AS due
                 FROM (SELECT e.id, e.stream_seq, e.next_attempt_at FROM webhook_deliveries e
                        WHERE e.webhook_id = claimed.webhook_id AND e.vault_id = claimed.vault_id
                          AND e.status = 'pending' AND e.stream_seq > claimed.stream_seq AND e.stream_seq <= $3
                        ORDER BY e.stream_seq LIMIT $4 - 1) e
               WINDOW w AS (ORDER BY e.stream_seq)) n
              WHERE n.due) t)
       UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1,
              next_attempt_at = now() + make_interval(secs => ($2::double precision + $5) / 1000),
              leased_until = now() + make_interval(secs => ($2::double precision + $5) / 1000)
         FROM runs
        WHERE d.id = runs.id AND d.status = 'pending'
        RETURNING d.id, d.webhook_id AS "webhookId", d.vault_id AS "vaultId", d.event_id AS "eventId",
                  d.stream_seq::text AS "streamSeq", d.body, d.attempts, runs.head_id AS "headId"`,
      [o.limit, o.attemptMs, horizon, o.runMax, o.slackMs],
    );
    const runs = new Map<string, ClaimedDelivery[]>();
    for (const { headId, ...d } of rows) runs.set(headId, [...(runs.get(headId) ?? []), d]);
    return [...runs.values()].map((run) => run.sort((a, b) => Number(BigInt(a.streamSeq) - BigInt(b.streamSeq))));
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

  /**
   * Stores the outcomes of a run's attempts and hands back the deliveries it did not
   * attempt (a failure stopped the run), in one statement: those are pending and due
   * again, unleased, their attempt no longer counted.
   */
  async recordRun(attempted: { id: string; outcome: AttemptOutcome }[], released: string[]): Promise<void> {
    const rows = [
      ...attempted.map(({ id, outcome: o }) => ({ id, ...o })),
      ...released.map((id) => ({ id, status: null, statusCode: null, error: null, excerpt: null, nextAttemptAt: null, agoMs: 0 })),
    ];
    if (rows.length === 0) return;
    await this.m.query(
      `UPDATE webhook_deliveries d
          SET status = coalesce(o.status, d.status),
              attempts = d.attempts - CASE WHEN o.status IS NULL THEN 1 ELSE 0 END,
              last_status_code = CASE WHEN o.status IS NULL THEN d.last_status_code ELSE o.code END,
              last_error = CASE WHEN o.status IS NULL THEN d.last_error ELSE o.error END,
              last_response_excerpt = CASE WHEN o.status IS NULL THEN d.last_response_excerpt ELSE o.excerpt END,
              next_attempt_at = CASE WHEN o.status IS NULL THEN now() ELSE o.next_at END,
              leased_until = NULL,
              delivered_at = CASE WHEN o.status = 'delivered'
                                  THEN now() - make_interval(secs => o.ago_ms / 1000) END
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::timestamptz[], $7::double precision[])
              AS o(id, status, code, error, excerpt, next_at, ago_ms)
        WHERE d.id = o.id`,
      columns(rows, ['id', 'status', 'statusCode', 'error', 'excerpt', 'nextAttemptAt', 'agoMs']),
    );
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
