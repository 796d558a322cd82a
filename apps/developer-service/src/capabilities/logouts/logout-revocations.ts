import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Kvm, type KvWatchEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { REVOCATION_BUCKET, TokenRevokedEvent } from '@vault/contracts';
import { KvBucketWatch, NATS_CONNECTION, watchBucket } from '@vault/platform/events';
import { RefreshTokenRepository } from '../../persistence/refresh-tokens/refresh-token.repository';

/** Wait before watching again when the bucket is missing (the user module creates it) or the watch ended. */
const RETRY_DELAY_MS = 2_000;

/** Token ids are UUIDs; other keys (identity.<digest> of deleted accounts) are not logouts. */
const TOKEN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Logouts (`DELETE /accounts/logout` of the user module) end the refresh tokens of the
 * identity at that application. A logout is an entry of the platform's revocation bucket
 * naming the access token's `jti`; each refresh token records the `jti` of the access token
 * answered with it, which leads to the identity and the application. The bucket is watched
 * (its entries first, then every change), so a logout that happened while this module was
 * down is applied at its next start; applying one again changes nothing.
 */
@Injectable()
export class LogoutRevocations implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Logouts');
  private watch?: KvBucketWatch;
  private stopped = false;
  /** Revocations run one after another, in the bucket's order. */
  private queue: Promise<void> = Promise.resolve();
  private markWatching!: () => void;
  /** Settles once the bucket's entries have been handed over (tests wait for it). */
  readonly watching = new Promise<void>((resolve) => (this.markWatching = resolve));

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly repository: RefreshTokenRepository,
  ) {}

  /** Starts watching in the background, retrying while the bucket cannot be read. */
  start(): void {
    void this.connect();
  }

  /** Resolves once the logouts handed over so far are applied. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Shutdown drains NATS, which ends the watch: that end is not a failure to repair. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.nc.isClosed() || this.nc.isDraining()) return;
    try {
      const bucket = await new Kvm(this.nc).open(REVOCATION_BUCKET);
      await bucket.status(); // fails while the bucket does not exist yet
      this.watch = await watchBucket(bucket, (entry) => this.apply(entry));
      this.markWatching();
      this.watch.ended.catch((err) => this.logger.warn(`logout watch failed: ${err}`)).finally(() => this.retry());
    } catch (err) {
      this.logger.debug(`logout watch not started: ${err}`);
      this.retry();
    }
  }

  private retry(): void {
    if (!this.stopped) setTimeout(() => void this.connect(), RETRY_DELAY_MS).unref();
  }

  private apply(entry: KvWatchEntry): void {
    if (entry.operation !== 'PUT' || !TOKEN_ID.test(entry.key)) return;
    let loggedOutAt: Date;
    try {
      loggedOutAt = new Date(entry.json<TokenRevokedEvent>().revokedAt);
    } catch {
      return;
    }
    if (Number.isNaN(loggedOutAt.getTime())) return;
    this.queue = this.queue
      .then(() => this.repository.revokeForLogout(entry.key, loggedOutAt))
      .then((n) => {
        if (n > 0) this.logger.debug(`logout of ${entry.key}: ${n} refresh-token famil${n === 1 ? 'y' : 'ies'} revoked`);
      })
      .catch((err) => this.logger.warn(`logout of ${entry.key} not applied: ${err}`));
  }
}
