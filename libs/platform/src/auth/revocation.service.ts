import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { NatsConnection, QueuedIterator } from '@nats-io/nats-core';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import { REVOCATION_BUCKET, TokenRevokedEvent } from '@vault/contracts';
import { NATS_CONNECTION } from '../nats/nats.module';

/** Longest lifetime a revocation entry needs: tokens never live longer than this. */
export const REVOCATION_TTL_MS = 24 * 60 * 60 * 1000;

/** How long start-up waits for the revocation history before the app refuses to start. */
const REPLAY_TIMEOUT_MS = 30_000;
const RESTART_DELAY_MS = 1_000;
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Revoked token ids, shared by every service through a JetStream key-value bucket.
 * Each service watches the bucket (history first, then live updates), so a
 * revocation reaches all of them within milliseconds and survives restarts of
 * any service or of NATS (the bucket is file-backed).
 *
 * It fails closed: the app does not start until the history is replayed, and
 * while a broken watch is being re-established the service reports not-ready.
 */
@Injectable()
export class RevocationService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Revocation');
  private readonly revoked = new Map<string, number>();
  private kv!: KV;
  private watcher?: QueuedIterator<KvWatchEntry>;
  /** Expired entries leave the bucket by TTL without a delete marker: drop them here too. */
  private readonly pruner = setInterval(() => this.prune(), PRUNE_INTERVAL_MS).unref();
  private live = false;
  private stopped = false;

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onModuleInit(): Promise<void> {
    this.kv = await new Kvm(this.nc).create(REVOCATION_BUCKET, {
      ttl: REVOCATION_TTL_MS,
      history: 1,
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

  /** True while the watch runs and its history has been replayed (readiness). */
  isLive(): boolean {
    return this.live;
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  /** Records a revocation; every service sees it through its watch. */
  async revoke(jti: string, exp: number): Promise<void> {
    const event: TokenRevokedEvent = { jti, exp, revokedAt: new Date().toISOString() };
    await this.kv.put(jti, JSON.stringify(event));
    this.revoked.set(jti, exp);
  }

  /**
   * Starts a watch and resolves once the bucket's current entries are applied.
   * When the watch ends or fails later, it is started again (a full replay,
   * which is idempotent) and the service is not ready meanwhile.
   */
  private async watch(): Promise<void> {
    const expected = (await this.kv.status()).values;
    const watcher = await this.kv.watch();
    this.watcher = watcher;
    let markReplayed!: () => void;
    const replayed = new Promise<void>((r) => (markReplayed = r));
    let seen = 0;
    const done = () => {
      if (!this.live) {
        this.live = true;
        markReplayed();
      }
    };
    if (expected === 0) done();
    void (async () => {
      for await (const e of watcher) {
        this.apply(e);
        seen++;
        if (e.isUpdate || seen >= expected) done();
      }
    })()
      .catch((err) => this.logger.error(`revocation watch failed: ${err}`))
      .finally(() => {
        this.live = false;
        if (!this.stopped && !this.nc.isClosed() && !this.nc.isDraining()) {
          this.logger.warn('revocation watch ended; restarting it');
          setTimeout(() => this.restart(), RESTART_DELAY_MS).unref();
        }
      });
    await replayed;
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
