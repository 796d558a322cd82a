import {
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

/**
 * Revoked token ids, shared by every service through a JetStream key-value bucket.
 * Each service watches the bucket (history first, then live updates), so a
 * revocation reaches all of them within milliseconds and survives restarts of
 * any service or of NATS (the bucket is file-backed).
 */
@Injectable()
export class RevocationService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Revocation');
  private readonly revoked = new Map<string, number>();
  private kv!: KV;
  private watcher?: QueuedIterator<KvWatchEntry>;
  private ready!: Promise<void>;

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onModuleInit(): Promise<void> {
    this.kv = await new Kvm(this.nc).create(REVOCATION_BUCKET, {
      ttl: REVOCATION_TTL_MS,
      history: 1,
    });
    this.watcher = await this.kv.watch();
    let markReady!: () => void;
    this.ready = new Promise((r) => (markReady = r));
    const initial = (await this.kv.status()).values;
    if (initial === 0) markReady();
    let seen = 0;
    void (async () => {
      for await (const e of this.watcher!) {
        if (e.operation === 'PUT') {
          const ev = e.json<TokenRevokedEvent>();
          this.revoked.set(e.key, ev.exp);
        } else {
          this.revoked.delete(e.key);
        }
        if (++seen >= initial) markReady();
      }
    })().catch((err) => this.logger.error(`revocation watch stopped: ${err}`));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ready, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
    this.prune();
  }

  async onApplicationShutdown(): Promise<void> {
    this.watcher?.stop();
  }

  isRevoked(jti: string): boolean {
    const exp = this.revoked.get(jti);
    return exp !== undefined;
  }

  /** Records a revocation; every service sees it through its watch. */
  async revoke(jti: string, exp: number): Promise<void> {
    const event: TokenRevokedEvent = { jti, exp, revokedAt: new Date().toISOString() };
    await this.kv.put(jti, JSON.stringify(event));
    this.revoked.set(jti, exp);
  }

  /** Drops entries of tokens that have expired anyway (they fail the exp check). */
  private prune(): void {
    const now = Math.floor(Date.now() / 1000);
    for (const [jti, exp] of this.revoked) if (exp < now) this.revoked.delete(jti);
  }
}
