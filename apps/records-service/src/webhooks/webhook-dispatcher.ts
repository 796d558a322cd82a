import { Injectable, Logger } from '@nestjs/common';
import { WebhookDeliveryEntity } from '../persistence/webhook-delivery.entity';
import { WebhookEntity } from '../persistence/webhook.entity';
import { WebhookRepository } from '../persistence/webhook.repository';
import { FanoutHorizon } from './fanout-horizon';
import { OutboundHttp, PostResult } from './outbound-http';
import { signedHeaders, signingKeys } from './signing';
import { TargetGuard } from './target-guard';
import { retrySchedule, WebhooksEnv } from './webhooks.env';

/** The next delay of a schedule, jittered by ±20 % so failing receivers are not hit in step. */
export const jittered = (ms: number, random = Math.random()) => Math.round(ms * (0.8 + 0.4 * random));

/**
 * Sends due deliveries (docs/webhooks.md, Delivery): claims them from the delivery
 * table with a lease (each subscription's oldest pending event of a vault first, and
 * only events up to the fan-out's horizon, so that no earlier event can still appear),
 * signs and POSTs them, and stores each outcome: 2xx delivered; 410 Gone disables the
 * subscription; anything else (no answer, timeout, refused target, other status) is
 * retried along WEBHOOK_RETRY_SCHEDULE_MS and then given up. A subscription failing
 * for WEBHOOK_DISABLE_AFTER_MS without a success is disabled with its reason.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly http: OutboundHttp;
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
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts made since start (any outcome). */
  attempted = 0;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly env: WebhooksEnv,
    private readonly horizon: FanoutHorizon,
    guard: TargetGuard,
  ) {
    this.http = new OutboundHttp({
      guard,
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: env.WEBHOOK_RESPONSE_TIMEOUT_MS,
      connectionsPerOrigin: env.WEBHOOK_CONCURRENCY,
    });
    this.schedule = retrySchedule(env);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.env.WEBHOOK_POLL_MS);
    this.wake();
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

  /** Stops claiming and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    clearTimeout(this.recheck);
    await this.ticking;
    await Promise.all(this.inFlight);
    await this.http.close();
  }

  private async tick(): Promise<void> {
    const room = this.env.WEBHOOK_CONCURRENCY - this.inFlight.size;
    if (room <= 0) return;
    const lease = this.env.WEBHOOK_CONNECT_TIMEOUT_MS + this.env.WEBHOOK_RESPONSE_TIMEOUT_MS + 10_000;
    const horizon = await this.horizon.current();
    this.recheckUntil(horizon);
    const due = await this.webhooks.claimDue(room, lease, horizon);
    if (due.length === 0) return;
    const owners = await this.webhooks.webhooksByIds([...new Set(due.map((d) => d.webhookId))]);
    for (const d of due) {
      const w = owners.get(d.webhookId);
      if (!w) continue;
      const p = this.attempt(w, d)
        .catch((err) => this.logger.warn(`delivery ${d.id}: ${err}`))
        .finally(() => {
          this.inFlight.delete(p);
          // The next event of the subscription may be due now.
          this.wake();
        });
      this.inFlight.add(p);
    }
  }

  /**
   * Deliveries just stored wait for the fan-out's acks to reach JetStream: look again
   * soon (25 ms, doubling up to WEBHOOK_POLL_MS) until the horizon passes them.
   */
  private recheckUntil(horizon: number): void {
    if (horizon >= this.stored) {
      this.recheckDelay = 0;
      return;
    }
    if (this.recheck) return;
    this.recheckDelay = Math.min(Math.max(this.recheckDelay * 2, 25), this.env.WEBHOOK_POLL_MS);
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.wake();
    }, this.recheckDelay);
  }

  private async attempt(w: WebhookEntity, d: WebhookDeliveryEntity): Promise<void> {
    const now = new Date();
    const headers = signedHeaders(signingKeys(w, now), d.eventId, now, d.body);
    const res = await this.http.post(w.url, headers, d.body);
    this.attempted++;
    if (res.status !== null && res.status >= 200 && res.status < 300) {
      await this.webhooks.recordAttempt(d.id, { ...outcome(res), status: 'delivered', nextAttemptAt: null });
      // Only a subscription that was failing when claimed has a streak to end (one query less per delivery).
      if (w.failingSince) await this.webhooks.markHealthy(w.id);
      return;
    }
    if (res.status === 410) {
      await this.webhooks.recordAttempt(d.id, { ...outcome(res), status: 'failed', nextAttemptAt: null });
      await this.webhooks.disable(w.id, `the receiver answered 410 Gone on ${now.toISOString()}`);
      return;
    }
    const delay = this.schedule[d.attempts - 1];
    const nextAttemptAt = delay === undefined ? null : new Date(now.getTime() + jittered(delay));
    await this.webhooks.recordAttempt(d.id, {
      ...outcome(res),
      status: nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt,
    });
    const since = await this.webhooks.markFailing(w.id);
    if (now.getTime() - since.getTime() >= this.env.WEBHOOK_DISABLE_AFTER_MS) {
      await this.webhooks.disable(
        w.id,
        `deliveries failing since ${since.toISOString()}; last error: ${outcome(res).error}`,
      );
    }
  }
}

function outcome(res: PostResult) {
  const error = res.error ?? (res.status !== null && (res.status < 200 || res.status >= 300) ? `HTTP ${res.status}` : null);
  return { statusCode: res.status, error, excerpt: res.excerpt };
}
