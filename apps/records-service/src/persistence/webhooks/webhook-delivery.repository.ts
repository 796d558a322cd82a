import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { opaque, preparedQuery } from '../entity-rows';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import type { WebhookEntity } from './webhook.entity';

/** A delivery to create for a matching subscription (fan-out of one event). */
export type NewDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'webhookId' | 'vaultId' | 'eventId' | 'eventType' | 'streamSeq' | 'body'
>;

/**
 * A delivery claimed for an attempt (its attempt already counted), or taken into a run in
 * flight without a lease (`uncounted`: its attempt is counted when its outcome is stored).
 */
export type ClaimedDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'webhookId' | 'vaultId' | 'eventId' | 'streamSeq' | 'body' | 'attempts'
> & { uncounted?: true };

/** A delivery stored without a claim, with what a run in flight of its pair needs to take it (insertDeliveries). */
export type LeftDelivery = ClaimedDelivery & {
  /** No pending delivery of the pair comes before it but those of the runs in flight named to the insert. */
  clear: boolean;
  /** Its subscription is enabled, and was last changed then. */
  enabled: boolean;
  updatedAt: Date;
};

/** What sending needs of the subscription a run is claimed for (its target, secrets and state), read with the claim. */
export type DeliveryOwner = Pick<
  WebhookEntity,
  'id' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'failingSince' | 'updatedAt'
>;

/** The subscription-and-vault pair a delivery belongs to (the unit of order and of runs), as a key. */
export const pairOf = (d: Pick<WebhookDeliveryEntity, 'webhookId' | 'vaultId'>) => `${d.webhookId} ${d.vaultId}`;

/** A claimed run: one subscription's and vault's due deliveries in stream order, with the subscription. */
export interface ClaimedRun {
  owner: DeliveryOwner;
  deliveries: ClaimedDelivery[];
}

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

/** An attempt's outcome to store on its delivery (`uncounted`: a delivery taken into a run without a claim). */
export interface AttemptRecord {
  id: string;
  outcome: AttemptOutcome;
  uncounted?: true;
}

/** Where a delivery sits in its log's order: creation time to the microsecond (UTC), stream sequence, id. */
export interface DeliveryKey {
  at: string;
  seq: string;
  id: string;
}

/** Deliveries of a log page, with the key of each (same order). */
export interface DeliverySlice {
  rows: WebhookDeliveryEntity[];
  keys: DeliveryKey[];
}

/** The values of each named field over rows, one array per field (for `unnest`). */
const columns = <T>(rows: T[], fields: (keyof T)[]) => fields.map((f) => rows.map((r) => r[f]));

/**
 * What a claim sets on each delivery it takes (`d`): one attempt more, due again and leased
 * until the attempt's time plus slack have passed (the SQL parameters holding both, in ms).
 */
const claimSet = (attemptMs: string, slackMs: string) =>
  `SET attempts = d.attempts + 1,
              next_attempt_at = ${leaseEnd(attemptMs, slackMs)},
              leased_until = ${leaseEnd(attemptMs, slackMs)}`;

/** When a lease taken now ends: the attempt's time plus slack (the SQL parameters holding both, in ms). */
const leaseEnd = (attemptMs: string, slackMs: string) =>
  `now() + make_interval(secs => (${attemptMs}::double precision + ${slackMs}) / 1000)`;

/** The subscription of each claimed delivery (`d`) of a claim's answer, joined as `w` (DeliveryOwner). */
const OWNER_COLUMNS = `w.url, w.secret, w.previous_secret AS "previousSecret",
                  w.previous_secret_expires_at AS "previousSecretExpiresAt", w.failing_since AS "failingSince",
                  w.updated_at AS "updatedAt"`;

/** A run whose every attempt was delivered, as its end is stored (WebhookDeliveryRepository.recordAndContinue). */
export interface RunEnd {
  delivered: AttemptRecord[];
  webhookId: string;
  vaultId: string;
  /** The stream sequence of the run's last event. */
  afterSeq: string;
  /** When the run's subscription was read (its `updatedAt` then). */
  webhookReadAt: Date;
}

/** What follows a run's end: the pair's next run, or none and whether a claim may find more. */
export interface RunContinued {
  run: ClaimedDelivery[];
  more: boolean;
}

/** How a claim's lease is taken: per run at most `runMax` events, `attemptMs` + `slackMs` long. */
export interface LeaseTerms {
  runMax: number;
  attemptMs: number;
  slackMs: number;
}

/** The columns of a claimed delivery (`ClaimedDelivery`), as a claim's RETURNING lists them. */
const CLAIMED_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.vault_id AS "vaultId", d.event_id AS "eventId",
                  d.stream_seq::text AS "streamSeq", d.body, d.attempts`;

/**
 * The deliveries of webhook subscriptions: created by the fan-out, the ones due claimed in
 * runs with a lease (oldest event of a subscription and vault first), the outcomes of a run's
 * attempts, and the owner's reads and redeliveries.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly tx: Transactions) {}

  private get m() {
    return this.tx.none;
  }

  /**
   * The statements of the delivery path (insert, claim, run ends) as named prepared statements:
   * parsed and planned once per connection. Planned at each call they spent more time in the
   * planner than in their run (docs/benchmarks.md).
   */
  private prepared<T extends object>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.m, name, text, values);
  }

  /**
   * Inserts new deliveries (the fan-out's), and claims in the same statement the runs that may
   * be sent at once: per subscription and vault, the new events up to stream sequence `upTo`
   * (every event up to it is stored once this statement commits) when no delivery of the pair
   * is pending (none is waiting or being sent before them), the oldest first and up to `runMax`,
   * for at most `room` pairs of enabled subscriptions; leased as a claim leases them. A delivery
   * that exists already (a redelivered event) is left as it is, and the run of its pair is handed
   * back at once (its earlier event may have been stored by another instance's insert this one
   * did not see, or waited for): the next claim takes it in order. Answers the runs claimed,
   * each in order, with its subscription, and the stored deliveries left for a claim (with what
   * handing them to a run in flight needs), in stream order.
   */
  async insertDeliveries(
    rows: NewDelivery[],
    claim: LeaseTerms & { upTo: number; room: number; running?: string[] },
  ): Promise<{ runs: ClaimedRun[]; leftRows: LeftDelivery[] }> {
    if (rows.length === 0) return { runs: [], leftRows: [] };
    const stored: (ClaimedDelivery &
      Omit<DeliveryOwner, 'id'> & { claimed: boolean; whole: boolean; clear: boolean; enabled: boolean })[] = await this.prepared(
      'webhook_deliveries_insert',
      `WITH r AS (
         SELECT r.*, row_number() OVER (PARTITION BY r.webhook_id, r.vault_id ORDER BY r.stream_seq) AS nth
           FROM unnest(${opaque('$1::uuid[]', '$2::uuid[]', '$3::uuid[]', '$4::uuid[]', '$5::text[]', '$6::bigint[]', '$7::text[]')})
                AS r(id, webhook_id, vault_id, event_id, event_type, stream_seq, body)),
       free AS (
         SELECT h.webhook_id, h.vault_id FROM r h
          WHERE h.nth = 1 AND h.stream_seq <= $8
            AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = h.webhook_id AND w.enabled)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                             WHERE e.webhook_id = h.webhook_id AND e.vault_id = h.vault_id AND e.status = 'pending')
          ORDER BY h.stream_seq
          LIMIT $9),
       stored AS (
         INSERT INTO webhook_deliveries AS d
                (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status, attempts, next_attempt_at, leased_until)
         SELECT r.id, r.webhook_id, r.vault_id, r.event_id, r.event_type, r.stream_seq, r.body, 'pending',
                CASE WHEN r.run THEN 1 ELSE 0 END,
                CASE WHEN r.run THEN ${leaseEnd('$11', '$12')} ELSE now() END,
                CASE WHEN r.run THEN ${leaseEnd('$11', '$12')} END
           FROM (SELECT r.*, f.webhook_id IS NOT NULL AND r.nth <= $10 AND r.stream_seq <= $8 AS run
                   FROM r LEFT JOIN free f ON f.webhook_id = r.webhook_id AND f.vault_id = r.vault_id) r
         ON CONFLICT DO NOTHING
         RETURNING d.*)
       SELECT ${CLAIMED_COLUMNS}, d.leased_until IS NOT NULL AS claimed, ${OWNER_COLUMNS}, w.enabled,
              NOT EXISTS (SELECT 1 FROM r WHERE r.webhook_id = d.webhook_id AND r.vault_id = d.vault_id
                             AND r.stream_seq <= d.stream_seq AND NOT EXISTS (SELECT 1 FROM stored s WHERE s.id = r.id)) AS whole,
              NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                           WHERE e.webhook_id = d.webhook_id AND e.vault_id = d.vault_id AND e.status = 'pending'
                             AND e.stream_seq < d.stream_seq AND e.id <> ALL($13::uuid[])) AS clear
         FROM stored d JOIN webhooks w ON w.id = d.webhook_id`,
      [
        ...columns(rows, ['id', 'webhookId', 'vaultId', 'eventId', 'eventType', 'streamSeq', 'body']),
        claim.upTo,
        claim.room,
        claim.runMax,
        claim.attemptMs,
        claim.slackMs,
        claim.running ?? [],
      ],
    );
    // A pair with an event of the batch already stored (a redelivered event) may have it stored by
    // another instance's insert this statement waited for or did not see: its run is handed back.
    const doubtful = new Set(stored.filter((d) => !d.whole).map(pairOf));
    const claimed: (ClaimedDelivery & Omit<DeliveryOwner, 'id'>)[] = [];
    const handedBack: ClaimedDelivery[] = [];
    const leftRows: LeftDelivery[] = [];
    for (const { claimed: leased, whole: _, clear, enabled, ...d } of stored) {
      if (leased && !doubtful.has(pairOf(d))) claimed.push(d);
      else {
        const { delivery, owner } = withOwner(d);
        leftRows.push({
          ...delivery,
          attempts: leased ? d.attempts - 1 : d.attempts,
          clear,
          enabled,
          updatedAt: owner.updatedAt,
        });
      }
      if (leased && doubtful.has(pairOf(d))) handedBack.push(d);
    }
    await this.recordRun([], handedBack);
    leftRows.sort((a, b) => Number(BigInt(a.streamSeq) - BigInt(b.streamSeq)));
    for (const d of leftRows) if (doubtful.has(pairOf(d))) d.clear = false;
    return { runs: runsOf(claimed), leftRows };
  }

  /**
   * Deliveries of a subscription, newest event first (creation time, stream sequence, id): the
   * ones after `after` (keyset, on the log index), or from `offset` when there is none; each
   * with its key for the cursor of the next page.
   */
  async deliveries(webhookId: string, after: DeliveryKey | null, offset: number, limit: number): Promise<DeliverySlice> {
    const q = this.m
      .createQueryBuilder(WebhookDeliveryEntity, 'd')
      .addSelect(`to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'key_at')
      .where('d.webhook_id = :webhookId', { webhookId })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.stream_seq', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .limit(limit);
    if (after) {
      q.andWhere(
        '(d.created_at, d.stream_seq, d.id) < (CAST(:at AS timestamptz), CAST(:seq AS bigint), CAST(:id AS uuid))',
        after,
      );
    } else q.offset(offset);
    const { entities, raw } = await q.getRawAndEntities<{ key_at: string }>();
    return { rows: entities, keys: entities.map((e, i) => ({ at: raw[i].key_at, seq: e.streamSeq, id: e.id })) };
  }

  /** How many deliveries the subscription's log holds. */
  countDeliveries(webhookId: string): Promise<number> {
    return this.m.countBy(WebhookDeliveryEntity, { webhookId });
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
   * Answers each run in order, with its subscription as the claim saw it.
   */
  async claimRuns(o: LeaseTerms & { limit: number }, horizon: number): Promise<ClaimedRun[]> {
    const rows: (ClaimedDelivery & Omit<DeliveryOwner, 'id'>)[] = await this.prepared(
      'webhook_deliveries_claim',
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
         SELECT claimed.id FROM claimed
         UNION ALL
         SELECT t.id FROM claimed
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
          ${claimSet('$2', '$5')}
         FROM runs, webhooks w
        WHERE d.id = runs.id AND d.status = 'pending' AND w.id = d.webhook_id
        RETURNING ${CLAIMED_COLUMNS}, ${OWNER_COLUMNS}`,
      [o.limit, o.attemptMs, horizon, o.runMax, o.slackMs],
    );
    return runsOf(rows);
  }

  /**
   * Stores the outcomes of runs whose every attempt was delivered and, in the same
   * statement, claims the next run of each one's subscription and vault: its pending events
   * after `afterSeq` (the run's last) in stream order, up to `runMax`, as long as each is
   * due, only up to stream sequence `horizon`, and only while the subscription is enabled
   * and unchanged since `webhookReadAt` (its url or secrets as read for the run; otherwise
   * nothing is claimed and the next claim reads it again). The next events are leased as a
   * claim leases them; no other claim can take them meanwhile, because until this statement
   * commits the pair's oldest pending event is the run's head, which is leased. So a vault
   * that keeps receiving events is sent them one run after the other without waiting for
   * the next claim, and the runs that end together are stored by one statement. Answers, for
   * each run in the order given, the next run in order (empty: none) and, when there is none,
   * whether the pair still has due events after the run (`more`: above the horizon, stored by
   * another instance, or of a subscription changed since the run's read), which only a claim
   * can take.
   */
  async recordAndContinue(ends: RunEnd[], terms: LeaseTerms & { horizon: number }): Promise<RunContinued[]> {
    if (ends.length === 0) return [];
    const rows = ends.flatMap((e) => e.delivered.map(({ id, outcome: o, uncounted }) => ({ id, ...o, add: uncounted ? 1 : 0 })));
    const answer: ({ pair: string; more: boolean } & Partial<ClaimedDelivery>)[] = await this.prepared(
      'webhook_deliveries_end_and_continue',
      `WITH done AS (
         UPDATE webhook_deliveries d
            SET status = o.status, last_status_code = o.code, last_error = o.error, last_response_excerpt = o.excerpt,
                next_attempt_at = o.next_at, leased_until = NULL, attempts = d.attempts + o.add,
                delivered_at = CASE WHEN o.status = 'delivered' THEN now() - make_interval(secs => o.ago_ms / 1000) END
           FROM unnest(${opaque('$1::uuid[]', '$2::text[]', '$3::int[]', '$4::text[]', '$5::text[]', '$6::timestamptz[]', '$7::double precision[]', '$16::int[]')})
                AS o(id, status, code, error, excerpt, next_at, ago_ms, add)
          WHERE d.id = o.id
          RETURNING d.id),
       pairs AS (
         SELECT * FROM unnest(${opaque('$8::uuid[]', '$9::uuid[]', '$10::bigint[]', '$11::timestamptz[]')}) WITH ORDINALITY
                AS p(webhook_id, vault_id, after_seq, read_at, k)),
       next AS (
         SELECT n.id, p.k FROM pairs p
           JOIN webhooks w ON w.id = p.webhook_id AND w.enabled AND w.updated_at < p.read_at + interval '1 millisecond'
           CROSS JOIN LATERAL (
             SELECT e.id, bool_and(e.next_attempt_at <= now()) OVER (ORDER BY e.stream_seq) AS due
               FROM (SELECT e.id, e.stream_seq, e.next_attempt_at FROM webhook_deliveries e
                      WHERE e.webhook_id = p.webhook_id AND e.vault_id = p.vault_id AND e.status = 'pending'
                        AND e.stream_seq > p.after_seq AND e.stream_seq <= $12
                      ORDER BY e.stream_seq LIMIT $13) e) n
          WHERE n.due),
       claimed AS (
         UPDATE webhook_deliveries d
            ${claimSet('$14', '$15')}
           FROM next
          WHERE d.id = next.id AND d.status = 'pending'
          RETURNING next.k, ${CLAIMED_COLUMNS})
       SELECT p.k::text AS pair, c.id, c."webhookId", c."vaultId", c."eventId", c."streamSeq", c.body, c.attempts,
              EXISTS (SELECT 1 FROM webhook_deliveries e
                       WHERE e.webhook_id = p.webhook_id AND e.vault_id = p.vault_id AND e.status = 'pending'
                         AND e.stream_seq > p.after_seq AND e.next_attempt_at <= now()) AS more
         FROM pairs p LEFT JOIN claimed c ON c.k = p.k`,
      [
        ...columns(rows, ['id', 'status', 'statusCode', 'error', 'excerpt', 'nextAttemptAt', 'agoMs']),
        ...columns(ends, ['webhookId', 'vaultId', 'afterSeq', 'webhookReadAt']),
        terms.horizon,
        terms.runMax,
        terms.attemptMs,
        terms.slackMs,
        rows.map((r) => r.add),
      ],
    );
    const out: RunContinued[] = ends.map(() => ({ run: [], more: false }));
    for (const { pair, more, ...d } of answer) {
      const continued = out[Number(pair) - 1];
      if (d.id) continued.run.push(d as ClaimedDelivery);
      continued.more = more;
    }
    for (const c of out) {
      c.run.sort((a, b) => Number(BigInt(a.streamSeq) - BigInt(b.streamSeq)));
      c.more &&= c.run.length === 0;
    }
    return out;
  }

  /**
   * Stores the outcomes of a run's attempts and hands back the deliveries it did not
   * attempt (a failure stopped the run), in one statement: those are pending and due
   * again, unleased, their attempt no longer counted.
   */
  async recordRun(attempted: AttemptRecord[], released: Pick<ClaimedDelivery, 'id' | 'uncounted'>[]): Promise<void> {
    const rows = [
      ...attempted.map(({ id, outcome: o, uncounted }) => ({ id, ...o, add: uncounted ? 1 : 0 })),
      ...released.map(({ id, uncounted }) => ({
        id,
        status: null,
        statusCode: null,
        error: null,
        excerpt: null,
        nextAttemptAt: null,
        agoMs: 0,
        add: uncounted ? 0 : -1,
      })),
    ];
    if (rows.length === 0) return;
    await this.prepared(
      'webhook_deliveries_end',
      `UPDATE webhook_deliveries d
          SET status = coalesce(o.status, d.status),
              attempts = d.attempts + o.add,
              last_status_code = CASE WHEN o.status IS NULL THEN d.last_status_code ELSE o.code END,
              last_error = CASE WHEN o.status IS NULL THEN d.last_error ELSE o.error END,
              last_response_excerpt = CASE WHEN o.status IS NULL THEN d.last_response_excerpt ELSE o.excerpt END,
              next_attempt_at = CASE WHEN o.status IS NULL THEN now() ELSE o.next_at END,
              leased_until = NULL,
              delivered_at = CASE WHEN o.status = 'delivered'
                                  THEN now() - make_interval(secs => o.ago_ms / 1000) END
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::timestamptz[], $7::double precision[], $8::int[])
              AS o(id, status, code, error, excerpt, next_at, ago_ms, add)
        WHERE d.id = o.id`,
      columns(rows, ['id', 'status', 'statusCode', 'error', 'excerpt', 'nextAttemptAt', 'agoMs', 'add']),
    );
  }
}

/** A row of a claim's answer as its delivery and the subscription read with it. */
function withOwner(row: ClaimedDelivery & Omit<DeliveryOwner, 'id'>): { delivery: ClaimedDelivery; owner: DeliveryOwner } {
  const { url, secret, previousSecret, previousSecretExpiresAt, failingSince, updatedAt, ...delivery } = row;
  return {
    delivery,
    owner: { id: delivery.webhookId, url, secret, previousSecret, previousSecretExpiresAt, failingSince, updatedAt },
  };
}

/** Claimed deliveries with their subscription's columns as runs: per subscription and vault, in stream order. */
function runsOf(rows: (ClaimedDelivery & Omit<DeliveryOwner, 'id'>)[]): ClaimedRun[] {
  const runs = new Map<string, ClaimedRun>();
  for (const row of rows) {
    const { delivery: d, owner } = withOwner(row);
    const run = runs.get(pairOf(d)) ?? { owner, deliveries: [] };
    run.deliveries.push(d);
    runs.set(pairOf(d), run);
  }
  for (const run of runs.values()) run.deliveries.sort((a, b) => Number(BigInt(a.streamSeq) - BigInt(b.streamSeq)));
  return [...runs.values()];
}
