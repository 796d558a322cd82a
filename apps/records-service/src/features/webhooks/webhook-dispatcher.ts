import { Injectable, Logger } from '@nestjs/common';
import {
  AttemptOutcome,
  ClaimedDelivery,
  ClaimedRun,
  DeliveryOwner,
  LeaseTerms,
  LeftDelivery,
  NewDelivery,
  pairOf,
  WebhookDeliveryRepository,
} from '../../persistence/webhooks/webhook-delivery.repository';
import { WebhookRepository } from '../../persistence/webhooks/webhook.repository';
import { FanoutHorizon } from './fanout-horizon';
import { OutboundHttp, PostResult } from './outbound-http';
import { RunEnds } from './run-ends';
import { SecretUnreadableError } from './secret-box/secret-box';
import { WebhookSecrets } from './secret-box/webhook-secrets';
import { signedHeaders } from './signing';
import { countAttempt } from './webhook-metrics';
import { TargetGuard } from './target-guard';
import { retrySchedule, WebhooksEnv } from './webhooks.env';

/** The next delay of a schedule, jittered by ±20 % so failing receivers are not hit in step. */
export const jittered = (ms: number, random = Math.random()) => Math.round(ms * (0.8 + 0.4 * random));

/** Lease time beyond the attempts' own timeouts (storing outcomes, signing, scheduling). */
const LEASE_SLACK_MS = 10_000;

/** The `lastError` of an attempt whose signing secret could not be decrypted (the reason, with its key id, goes to the log only). */
const NOT_SIGNED =
  'not sent: the delivery could not be signed (a problem of the service, not of the receiver); it is retried along the retry schedule';

/** An attempt's result; `notSigned` when nothing was sent because the signing secret could not be decrypted. */
type AttemptResult = PostResult & { notSigned?: true };

/**
 * Sends due deliveries (docs/webhooks.md, Delivery): claims them from the delivery
 * table with a lease, in runs (each subscription's oldest pending events of a vault, up
 * to WEBHOOK_RUN_MAX, and only events up to the fan-out's horizon, so that no earlier
 * event can still appear; the horizon is checked once per claim, FanoutHorizon.upTo), signs and POSTs a run's
 * events back to back, each after the previous got a 2xx, and stores the run's outcomes
 * in one statement: 2xx delivered; 410 Gone disables the
 * subscription; anything else (no answer, timeout, refused target, other status) is
 * retried along WEBHOOK_RETRY_SCHEDULE_MS and then given up. A subscription failing
 * for WEBHOOK_DISABLE_AFTER_MS without a success is disabled with its reason; an attempt
 * not sent because its signing secret could not be decrypted is retried but is not the
 * receiver's failure: it neither starts nor continues the streak.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly http: OutboundHttp;
  /** Stores the ends of runs whose every event was delivered, those ending together in one statement. */
  private readonly ends: RunEnds;
  private readonly schedule: number[];
  private timer?: NodeJS.Timeout;
  private running = false;
  private ticking?: Promise<void>;
  private again = false;
  /** Highest stream sequence whose deliveries the fan-out of this process stored. */
  private stored = 0;
  /** A look again soon while the horizon has not reached what was stored (acks on their way). */
  private recheck?: NodeJS.Timeout;
  private recheckDelay = 0;
  private lastHorizon = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** Slots held by a claim or by stores whose insert may claim runs (one per pair of its rows) until they answer. */
  private reserved = 0;
  private stopped?: Promise<void>;
  /** Stores in progress (their insert, then the start of the runs it claimed), each with the pairs of its deliveries. */
  private readonly storing = new Map<Promise<unknown>, string[]>();
  /** The runs in flight here, by pair. */
  private readonly runs = new Map<string, RunInFlight>();
  /** A claim may find due deliveries no run here will take (no slot was free, or a claim was full). */
  private owed = false;
  /** Attempts made since start (any outcome). */
  attempted = 0;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly env: WebhooksEnv,
    private readonly horizon: FanoutHorizon,
    private readonly secrets: WebhookSecrets,
    guard: TargetGuard,
  ) {
    this.http = new OutboundHttp({
      guard,
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: env.WEBHOOK_RESPONSE_TIMEOUT_MS,
      connectionsPerOrigin: env.WEBHOOK_CONCURRENCY,
    });
    this.schedule = retrySchedule(env);
    this.ends = new RunEnds(deliveries, () => ({ ...this.lease, horizon: this.horizon.known }));
  }

  /** Starts; resolves once the first look for due deliveries has ended. */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.env.WEBHOOK_POLL_MS);
    this.wake();
    return this.ticking ?? Promise.resolve();
  }

  /**
   * Looks for due deliveries now (new events, a redelivery, a resumed subscription);
   * `storedUpTo`: the fan-out stored the deliveries of the events up to this stream sequence.
   */
  wake(storedUpTo = 0): void {
    this.stored = Math.max(this.stored, storedUpTo);
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
      .catch((err) => this.logger.warn(`dispatch failed: ${err}`))
      .finally(() => {
        this.ticking = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming and waits for the attempts in flight (once: a second call waits for the first). */
  stop(): Promise<void> {
    return (this.stopped ??= this.halt());
  }

  private async halt(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    clearTimeout(this.recheck);
    await this.ticking;
    await Promise.allSettled(this.storing.keys());
    await Promise.all(this.inFlight);
    await this.http.close();
  }

  /**
   * Stores the fan-out's new deliveries and sends at once, on free slots, the runs their
   * insert could claim: those of subscriptions and vaults with nothing pending before them,
   * of events up to `upTo` (every event up to it is stored once the insert commits;
   * WebhookDeliveryRepository.insertDeliveries). The new deliveries of a pair whose run is in
   * flight here are taken into that run (handOver). Answers for how many pairs deliveries were
   * stored that wait for a claim (wake); the others wait for their pair's run here, which takes
   * them in the statement storing its outcomes or wakes a claim at its end.
   */
  async store(rows: NewDelivery[], upTo: number): Promise<number> {
    const pairs = [...new Set(rows.map(pairOf))];
    const room = this.running ? Math.max(0, Math.min(this.room, pairs.length)) : 0;
    this.reserved += room;
    const storing = (async () => {
      try {
        const claimedAt = Date.now();
        const running = pairs.flatMap((p) => this.runs.get(p)?.queue.map((d) => d.id) ?? []);
        const { runs, leftRows } = await this.deliveries.insertDeliveries(rows, { ...this.lease, upTo, room, running });
        this.startRuns(runs, claimedAt);
        const forClaim = this.handOver(leftRows, upTo);
        if (forClaim > 0) this.owed = true;
        return forClaim;
      } finally {
        this.reserved -= room;
      }
    })();
    // stop() waits for it: the runs its insert claimed are started, then waited for, before the client closes
    this.storing.set(storing, pairs);
    return storing.finally(() => this.storing.delete(storing));
  }

  /**
   * Waits for the stores in progress of a run's pair (their deliveries are then taken into the
   * run, handOver), for as long as the run may still start an attempt (half the lease slack since
   * its claim). A run whose last event was delivered while the next of its pair was being stored
   * goes on with it, instead of ending while the insert runs: stored after the statement storing
   * the run's end had looked, that event would wait for a claim.
   */
  private async storesOf(pair: string, claimedAt: number): Promise<void> {
    const stores = [...this.storing].flatMap(([store, pairs]) => (pairs.includes(pair) ? [store] : []));
    const left = claimedAt + LEASE_SLACK_MS / 2 - Date.now();
    if (stores.length === 0 || !this.running || left <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(stores), new Promise<void>((r) => (timer = setTimeout(r, left)))]).finally(() =>
      clearTimeout(timer),
    );
  }

  /**
   * Takes deliveries a store left into the runs in flight here of their pairs, in stream order:
   * sent after the run's current one, without a claim or a lease of their own, for as long as
   * the run is sending (the run's leased head keeps every other claim off the pair), when
   * nothing else of the pair is pending before them, their event is at or below the floor,
   * their subscription is unchanged since the run read it, and the run stays within
   * WEBHOOK_RUN_MAX. What a run cannot take it is told of (its end then wakes a claim unless
   * the statement storing its outcomes took them). Answers for how many pairs without a run
   * here deliveries were left.
   */
  private handOver(left: LeftDelivery[], upTo: number): number {
    const forClaim = new Set<string>();
    const refused = new Set<string>();
    for (const d of left) {
      const pair = pairOf(d);
      const run = this.runs.get(pair);
      if (!run) {
        forClaim.add(pair);
        continue;
      }
      const takes =
        !refused.has(pair) &&
        run.open &&
        d.clear &&
        d.enabled &&
        d.updatedAt.getTime() === run.owner.updatedAt.getTime() &&
        Number(d.streamSeq) <= upTo &&
        run.queue.length < this.env.WEBHOOK_RUN_MAX;
      if (takes) {
        const { clear: _c, enabled: _e, updatedAt: _u, ...delivery } = d;
        run.queue.push({ ...delivery, attempts: delivery.attempts + 1, uncounted: true });
      } else {
        refused.add(pair);
        run.missed++;
      }
    }
    return forClaim.size;
  }

  /** Slots free for new runs: WEBHOOK_CONCURRENCY less the runs in flight and the slots held for claims. */
  private get room(): number {
    return this.env.WEBHOOK_CONCURRENCY - this.inFlight.size - this.reserved;
  }

  /** How a run is leased (WebhookDeliveryRepository). */
  private get lease(): LeaseTerms {
    return { runMax: this.env.WEBHOOK_RUN_MAX, attemptMs: this.attemptMs, slackMs: LEASE_SLACK_MS };
  }

  private async tick(): Promise<void> {
    const room = this.room;
    if (room <= 0) {
      this.owed = true;
      return;
    }
    const horizon = await this.horizon.upTo(this.stored);
    this.recheckUntil(horizon);
    // the slots are held while the claim's statement runs: a store beside it claims only on the
    // others (what it leaves, the claim after this one takes)
    const slots = this.room;
    if (slots <= 0) {
      this.owed = true;
      return;
    }
    this.reserved += slots;
    this.owed = false;
    try {
      const claimedAt = Date.now();
      const runs = await this.deliveries.claimRuns({ limit: slots, ...this.lease }, horizon);
      // a full claim may have left due runs behind the last it took
      if (runs.length >= slots) this.owed = true;
      this.startRuns(runs, claimedAt);
    } catch (err) {
      this.owed = true;
      throw err;
    } finally {
      this.reserved -= slots;
    }
  }

  /**
   * Sends claimed runs, each on a slot of its own. A run's end wakes a claim when one may find
   * something: the run ended otherwise than with every event delivered, its last statement saw
   * due events of its pair it could not take (WebhookDeliveryRepository.recordAndContinue), a
   * store here left deliveries of its pair while that statement ran, or a claim is owed (a
   * slot is free now).
   */
  private startRuns(runs: ClaimedRun[], claimedAt: number): void {
    for (const { owner, deliveries } of runs) {
      const pair = pairOf(deliveries[0]);
      const run: RunInFlight = { owner, queue: deliveries, open: true, missed: 0 };
      this.runs.set(pair, run);
      const p = this.send(run, claimedAt)
        .catch((err) => {
          this.logger.warn(`deliveries ${run.queue.map((d) => d.id).join(', ')}: ${err}`);
          return true;
        })
        .then((more) => {
          // a run the insert claimed for the pair after this one's end may be in the map already
          if (this.runs.get(pair) === run) this.runs.delete(pair);
          this.inFlight.delete(p);
          if (more || this.owed) this.wake();
        });
      this.inFlight.add(p);
    }
  }

  /** Longest time one attempt may take (connect and response timeouts). */
  private get attemptMs(): number {
    return this.env.WEBHOOK_CONNECT_TIMEOUT_MS + this.env.WEBHOOK_RESPONSE_TIMEOUT_MS;
  }

  /**
   * Sends a run of one subscription's and vault's events in order, each after the
   * previous one got a 2xx; the first that does not (or a run that reached half the lease
   * slack since its claim, or a stopping dispatcher) ends it, and the events after it are handed
   * back. Then the outcomes are stored in one statement, and the subscription's state
   * (a failing streak ended or continued, 410, disabling) follows the last attempt. A run
   * whose every event was delivered goes on with the pair's next due events, claimed in the
   * statement that stores the outcomes (RunEnds: one statement for the runs ending
   * together), until none is left: a vault
   * that keeps receiving events is not held up by the claims of the others. Answers whether
   * a claim may find events of the pair now (see startRuns).
   */
  private async send(run: RunInFlight, firstClaimedAt: number): Promise<boolean> {
    let claimedAt = firstClaimedAt;
    for (;;) {
      let w = run.owner;
      const { attempted, last } = await this.attemptRun(w, run, claimedAt);
      if (!last) {
        await this.deliveries.recordRun([], run.queue);
        return true;
      }
      const stored = Date.now();
      const outcomes = attempted.map(({ id, outcome, at, uncounted }) => ({
        id,
        outcome: { ...outcome, agoMs: stored - at },
        uncounted,
      }));
      if (delivered(last.res) && attempted.length === run.queue.length && this.running) {
        const at = Date.now();
        const missedBefore = run.missed;
        const next = await this.ends.store({
          delivered: outcomes,
          webhookId: w.id,
          vaultId: last.d.vaultId,
          afterSeq: last.d.streamSeq,
          webhookReadAt: w.updatedAt,
        });
        // Only a subscription that was failing when claimed has a streak to end (one query less per run).
        if (w.failingSince) {
          await this.webhooks.markHealthy(w.id);
          w = { ...w, failingSince: null };
          run.owner = w;
          // the retries of the healed subscription's origin are due now: a claim takes them
          this.wake();
        }
        if (next.run.length === 0) return next.more || run.missed !== missedBefore;
        run.queue = next.run;
        run.open = true;
        claimedAt = at;
        continue;
      }
      await this.deliveries.recordRun(outcomes, run.queue.slice(attempted.length));
      await this.afterRun(w, attempted.length, last);
      return true;
    }
  }

  /**
   * Attempts a run's events in order until one is not delivered (or the run is out of time),
   * with those a store hands over meanwhile (handOver), the stores of its pair in progress
   * when its last event was delivered included (storesOf); the run takes none once this ends.
   */
  private async attemptRun(w: DeliveryOwner, run: RunInFlight, claimedAt: number) {
    const attempted: { id: string; outcome: AttemptOutcome; at: number; uncounted?: true }[] = [];
    let last: { res: AttemptResult; d: ClaimedDelivery; now: Date } | undefined;
    for (let n = 0; n < run.queue.length; n++) {
      const d = run.queue[n];
      // Every lease of the run, the head's first, ends one attempt and the slack after the claim, and the
      // outcomes are stored when the run ends: start an attempt only while it ends well before that.
      if (n > 0 && (!this.running || Date.now() - claimedAt > LEASE_SLACK_MS / 2)) break;
      const now = new Date();
      const res = await this.attempt(w, d, now);
      this.attempted++;
      const o = this.outcomeOf(res, d, now);
      countAttempt(o.status, res.notSigned);
      attempted.push({ id: d.id, outcome: o, at: Date.now(), uncounted: d.uncounted });
      last = { res, d, now };
      if (!delivered(res)) break;
      if (n === run.queue.length - 1) await this.storesOf(pairOf(d), claimedAt);
    }
    run.open = false;
    return { attempted, last };
  }

  /** The subscription's state after a run that did not end with every event delivered. */
  private async afterRun(
    w: DeliveryOwner,
    attempts: number,
    last: { res: AttemptResult; d: ClaimedDelivery; now: Date },
  ): Promise<void> {
    const { res, now } = last;
    if (delivered(res)) {
      // Only a subscription that was failing when claimed has a streak to end (one query less per run).
      if (w.failingSince) await this.webhooks.markHealthy(w.id);
      return;
    }
    // A success earlier in the run ended the streak that was running; this failure starts a new one.
    if (w.failingSince && attempts > 1) await this.webhooks.markHealthy(w.id);
    // Nothing reached the receiver: its streak is neither started nor continued.
    if (res.notSigned) return;
    if (res.status === 410) {
      await this.webhooks.disable(w.id, 'receiver_gone', `the receiver answered 410 Gone on ${now.toISOString()}`);
      return;
    }
    const since = await this.webhooks.markFailing(w.id);
    if (now.getTime() - since.getTime() >= this.env.WEBHOOK_DISABLE_AFTER_MS) {
      const reason = `deliveries failing since ${since.toISOString()}; last error: ${outcome(res).error}`;
      await this.webhooks.disable(w.id, 'deliveries_failing', reason);
    }
  }

  /**
   * Signs and POSTs one delivery. A secret that cannot be opened (a key missing from
   * WEBHOOK_SECRET_KEYS, an altered or moved value) sends nothing: the reason goes to the
   * log, the attempt fails with NOT_SIGNED and is retried along the schedule (a keyring put
   * right lets it through).
   */
  private async attempt(w: DeliveryOwner, d: ClaimedDelivery, now: Date): Promise<AttemptResult> {
    let keys: string[];
    try {
      keys = this.secrets.signingKeys(w, now);
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.logger.error(`delivery ${d.id} of webhook ${w.id} not sent: ${err.message}`);
      return { status: null, excerpt: null, error: NOT_SIGNED, notSigned: true };
    }
    return this.http.post(w.url, signedHeaders(keys, d.eventId, now, d.body), d.body);
  }

  /** What an attempt's answer makes of its delivery: delivered, given up (410, schedule over) or due again later. */
  private outcomeOf(res: PostResult, d: ClaimedDelivery, now: Date): AttemptOutcome {
    if (delivered(res)) return { ...outcome(res), status: 'delivered', nextAttemptAt: null, agoMs: 0 };
    if (res.status === 410) return { ...outcome(res), status: 'failed', nextAttemptAt: null, agoMs: 0 };
    const delay = this.schedule[d.attempts - 1];
    const nextAttemptAt = delay === undefined ? null : new Date(now.getTime() + jittered(delay));
    return { ...outcome(res), status: nextAttemptAt ? 'pending' : 'failed', nextAttemptAt, agoMs: 0 };
  }

  /**
   * Deliveries just stored wait for the fan-out's acks to reach JetStream: look again
   * soon (25 ms, doubling up to WEBHOOK_POLL_MS while the horizon does not move) until the
   * horizon passes them. A horizon that moved starts again from 25 ms: while events keep
   * coming the horizon is always a little behind what was stored, and is moving.
   */
  private recheckUntil(horizon: number): void {
    const moved = horizon > this.lastHorizon;
    this.lastHorizon = horizon;
    if (horizon >= this.stored) {
      this.recheckDelay = 0;
      return;
    }
    if (moved) this.recheckDelay = 0;
    if (this.recheck) return;
    this.recheckDelay = Math.min(Math.max(this.recheckDelay * 2, 25), this.env.WEBHOOK_POLL_MS);
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.wake();
    }, this.recheckDelay);
  }
}

/** A run in flight here: its subscription as read for it, and its pair's deliveries being sent. */
interface RunInFlight {
  owner: DeliveryOwner;
  /** The deliveries of the run, in order; a store adds to them while the run is `open` (handOver). */
  queue: ClaimedDelivery[];
  open: boolean;
  /** Stores that left deliveries of the pair this run did not take. */
  missed: number;
}

const delivered = (res: PostResult) => res.status !== null && res.status >= 200 && res.status < 300;

function outcome(res: PostResult) {
  const error = res.error ?? (res.status !== null && (res.status < 200 || res.status >= 300) ? `HTTP ${res.status}` : null);
  return { statusCode: res.status, error, excerpt: res.excerpt };
}
