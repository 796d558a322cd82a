import { Logger } from '@nestjs/common';
import { Kvm, type KvWatchEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { ApplicationOriginsEntry } from '@vault/contracts';
import { KvBucketWatch, watchBucket } from '@vault/platform/events';
import { AllowedOrigins } from './allowed-origins';

export interface OriginsWatchOptions {
  servers: string;
  bucket: string;
  replicas: number;
}

const RETRY_MS = 1000;

/**
 * Keeps AllowedOrigins in line with the developer module's bucket: connects, replays the
 * bucket, then applies every change; a watch that ends is started again. While NATS is
 * away the origins last seen stay in force (a request never waits for NATS), and before
 * the first replay no origin is allowed.
 */
export class OriginsWatch {
  private readonly logger = new Logger('CorsOrigins');
  private nc?: NatsConnection;
  private watch?: KvBucketWatch;
  private stopped = false;
  /** True once the bucket's entries were applied at least once. */
  replayed = false;

  constructor(
    private readonly origins: AllowedOrigins,
    private readonly options: OriginsWatchOptions,
  ) {}

  /** Starts watching; resolves once the first replay is applied, or after `waitMs` (it goes on meanwhile). */
  async start(waitMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    try {
      return await Promise.race([this.run(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    await this.nc?.close().catch(() => undefined);
  }

  private async run(): Promise<boolean> {
    while (!this.stopped) {
      try {
        this.nc ??= await connect({
          servers: this.options.servers.split(','),
          name: 'gateway-cors-origins',
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
        });
        // Created here too, so that the gateway may start before the developer module.
        const kv = await new Kvm(this.nc).create(this.options.bucket, { history: 1, replicas: this.options.replicas });
        this.watch = await watchBucket(kv, (e) => this.apply(e));
        this.replayed = true;
        this.logger.log(`browser origins watched in NATS KV bucket ${this.options.bucket}: ${this.origins.size} allowed`);
        void this.watch.ended
          .catch((err) => this.logger.warn(`origins watch failed: ${String(err)}`))
          .finally(() => {
            if (!this.stopped && this.nc && !this.nc.isClosed()) setTimeout(() => void this.run(), RETRY_MS).unref();
          });
        return true;
      } catch (err) {
        if (this.stopped) break;
        this.logger.warn(`browser origins not readable yet (${String(err)}); retrying`);
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
    return false;
  }

  private apply(e: KvWatchEntry): void {
    if (e.operation !== 'PUT') {
      this.origins.set(e.key, undefined);
      return;
    }
    try {
      this.origins.set(e.key, e.json<ApplicationOriginsEntry>());
    } catch {
      this.origins.set(e.key, undefined);
    }
  }
}
