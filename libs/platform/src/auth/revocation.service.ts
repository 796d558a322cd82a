import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleInit,
  Optional,
} from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import { COMMON_ERRORS, IdentityRevokedEvent, REVOCATION_BUCKET, TokenRevokedEvent } from '@vault/contracts';
import { ServiceEnv } from '../config/env';
import { KvBucketWatch, watchBucket } from '../events/nats/kv-watch';
import { NATS_CONNECTION } from '../events/nats/nats.module';
import { NatsConnectionState } from '../events/nats/nats-connection-state';
import { ProblemException } from '../errors/problem.exception';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '../errors/problem.filter';

/** Longest lifetime a revocation entry needs: tokens never live longer than this. */
const REVOCATION_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Key of an identity's entry in the revocation bucket: `identity.<sha256 hex of the
 * tenant id, a newline and the openId>` (keys allow no `|`; token ids are UUIDs, so
 * the two kinds of entries never collide).
 */
export function identityRevocationKey(tenantId: string, openId: string): string {
  return `identity.${createHash('sha256').update(`${tenantId}\n${openId}`).digest('hex')}`;
}

/** How long start-up waits for the revocation history before the app refuses to start. */
const REPLAY_TIMEOUT_MS = 30_000;
const RESTART_DELAY_MS = 1_000;
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Longest wait for the bucket to acknowledge a revocation before logout answers 503. */
const REVOKE_TIMEOUT_MS = 3_000;

/**
 * Revoked token ids, shared by every service through a JetStream key-value bucket.
 * Each service watches the bucket (history first, then live updates), so a
 * revocation reaches all of them within milliseconds and survives restarts of
 * any service or of NATS (the bucket is file-backed).
 *
 * It fails closed: the app does not start until the history is replayed, and
 * while a broken watch is being re-established, or the NATS connection is down
 * (the watch then receives nothing), the service reports not-ready. A
 * revocation counts only once the bucket acknowledged it; otherwise `revoke`
 * throws 503 `service_unavailable` with Retry-After.
 */
@Injectable()
export class RevocationService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Revocation');
  private readonly revoked = new Map<string, number>();
  private kv!: KV;
  private watcher?: KvBucketWatch;
  /** Expired entries leave the bucket by TTL without a delete marker: drop them here too. */
  private readonly pruner = setInterval(() => this.prune(), PRUNE_INTERVAL_MS).unref();
  private live = false;
  private stopped = false;

  private readonly connection: NatsConnectionState;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Optional() connection?: NatsConnectionState,
    @Optional() private readonly env?: ServiceEnv,
  ) {
    this.connection = connection ?? new NatsConnectionState(nc);
  }

  async onModuleInit(): Promise<void> {
    this.kv = await new Kvm(this.nc).create(REVOCATION_BUCKET, {
      ttl: REVOCATION_TTL_MS,
      history: 1,
      replicas: this.env?.KV_REPLICAS ?? 1,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`revocation history not replayed within ${REPLAY_TIMEOUT_MS} ms`)),
        REPLAY_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.watch(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Shutdown drains NATS, which ends the watch: that end is not a failure to repair. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pruner);
    this.watcher?.stop();
  }

  /** True while the watch runs, its history has been replayed and NATS is connected (readiness). */
  isLive(): boolean {
    return this.live && this.connection.connected;
  }

  /** True for a revoked token id, or (given the token's identity) any token of a revoked identity. */
  isRevoked(jti: string, identity?: { tenantId: string; openId: string }): boolean {
    if (this.revoked.has(jti)) return true;
    return (
      identity !== undefined &&
      this.revoked.size > 0 &&
      this.revoked.has(identityRevocationKey(identity.tenantId, identity.openId))
    );
  }

  /**
   * Records a revocation once the bucket acknowledged it; every service sees it
   * through its watch. While NATS is down (or the write is not acknowledged within
   * REVOKE_TIMEOUT_MS) it throws 503 and the token stays valid: nothing is kept
   * locally that other services would not know about.
   */
  async revoke(jti: string, exp: number): Promise<void> {
    const event: TokenRevokedEvent = { jti, exp, revokedAt: new Date().toISOString() };
    await this.record(jti, event, 'a token');
  }

  /**
   * Revokes every token of an identity in a tenant (its account was deleted): tokens
   * live at most 24 hours, so the entry lives that long and covers every token issued
   * before it, and any issued while the news of the deletion travels. Acknowledged
   * like `revoke` (503 otherwise, nothing revoked).
   */
  async revokeIdentity(tenantId: string, openId: string): Promise<void> {
    const exp = Math.floor((Date.now() + REVOCATION_TTL_MS) / 1000);
    const event: IdentityRevokedEvent = { tenantId, openId, exp, revokedAt: new Date().toISOString() };
    await this.record(identityRevocationKey(tenantId, openId), event, 'an identity');
  }

  /** Writes an entry and keeps it once the bucket acknowledged it; 503 otherwise. */
  private async record(key: string, event: { exp: number }, what: string): Promise<void> {
    if (!this.connection.connected) throw revocationUnavailable();
    try {
      await this.kv.put(key, JSON.stringify(event), { timeout: REVOKE_TIMEOUT_MS });
    } catch (err) {
      this.logger.warn(`revocation of ${what} not acknowledged: ${String(err)}`);
      throw revocationUnavailable();
    }
    this.revoked.set(key, event.exp);
  }

  /**
   * Withdraws an identity's revocation (best effort): for a deletion whose transaction
   * failed after the bucket acknowledged the entry, so that the account that still
   * exists is not locked out for a day.
   */
  async withdrawIdentity(tenantId: string, openId: string): Promise<void> {
    const key = identityRevocationKey(tenantId, openId);
    await this.kv.purge(key);
    this.revoked.delete(key);
  }

  /**
   * Starts a watch and resolves once the bucket's current entries are applied.
   * When the watch ends or fails later, it is started again (a full replay,
   * which is idempotent) and the service is not ready meanwhile.
   */
  private async watch(): Promise<void> {
    const watch = await watchBucket(this.kv, (e) => this.apply(e));
    this.watcher = watch;
    this.live = true;
    watch.ended
      .catch((err) => this.logger.error(`revocation watch failed: ${err}`))
      .finally(() => {
        this.live = false;
        if (!this.stopped && !this.nc.isClosed() && !this.nc.isDraining()) {
          this.logger.warn('revocation watch ended; restarting it');
          setTimeout(() => this.restart(), RESTART_DELAY_MS).unref();
        }
      });
  }

  private restart(): void {
    if (this.stopped) return;
    this.watch().catch((err) => {
      this.logger.error(`revocation watch could not restart: ${err}`);
      setTimeout(() => this.restart(), RESTART_DELAY_MS).unref();
    });
  }

  private apply(e: KvWatchEntry): void {
    if (e.operation !== 'PUT') {
      this.revoked.delete(e.key);
      return;
    }
    let exp: number;
    try {
      exp = e.json<TokenRevokedEvent>().exp;
    } catch {
      // An unreadable entry still names a revoked token: keep it as long as any token lives.
      exp = Math.floor((Date.now() + REVOCATION_TTL_MS) / 1000);
    }
    this.revoked.set(e.key, exp);
  }

  /** Drops entries of tokens that have expired anyway (they fail the exp check). */
  private prune(): void {
    const now = Math.floor(Date.now() / 1000);
    for (const [jti, exp] of this.revoked) if (exp < now) this.revoked.delete(jti);
  }
}

function revocationUnavailable(): ProblemException {
  return ProblemException.of(
    COMMON_ERRORS.serviceUnavailable,
    'The logout could not be recorded right now; the token is still valid. Retry later.',
    { headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) } },
  );
}
