import { Logger } from '@nestjs/common';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { KvBucketWatch, NatsConnectionState, watchBucket } from '@vault/platform/events';
import { WINDOW_MS, WindowCounters, type OwnCount } from './window-counters';

export interface CounterSyncOptions {
  /** NATS servers (comma-separated URLs). */
  servers: string;
  /** KV bucket shared by every gateway process of one deployment. */
  bucket: string;
  /** Replicas of the bucket when this process creates it (default 1). */
  replicas?: number;
  /** How often this process writes its changed counts. */
  syncMs: number;
  /** This process's name in the bucket's keys (unique per process start). */
  processId: string;
}

/** Entries outlive their window by a minute, then the bucket drops them. */
const ENTRY_TTL_MS = 2 * WINDOW_MS;
const WRITE_TIMEOUT_MS = 2000;
const RETRY_MS = 1000;

/**
 * Shares WindowCounters between gateway processes through a NATS KV bucket.
 * Each process writes only its own keys (`<window>.<policy>.<key hash>.<process>`,
 * value: its count so far), so writes never conflict and need no
 * compare-and-set; every process watches the bucket and adds up what the
 * others wrote. Writes are batched every `syncMs`; a request never waits for
 * NATS. While NATS is unreachable (or before the first connection) the
 * counters go on locally: each process then enforces the limits alone.
 */
export class NatsCounterSync {
  private readonly logger = new Logger('RateLimitStore');
  private nc?: NatsConnection;
  private state?: NatsConnectionState;
  private kv?: KV;
  private watcher?: KvBucketWatch;
  private timer?: NodeJS.Timeout;
  private flushing = false;
  private live = false;
  private stopped = false;

  constructor(
    private readonly counters: WindowCounters,
    private readonly options: CounterSyncOptions,
  ) {}

  /** True while counts flow both ways (connected, bucket watched). */
  get shared(): boolean {
    return this.live && this.state?.connected === true;
  }

  /**
   * Connects, opens the bucket and replays its entries; resolves true once that
   * is done, or false after `waitMs` (the attempt goes on in the background and
   * the limiter works locally meanwhile).
   */
  async start(waitMs: number): Promise<boolean> {
    const ready = this.attach();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    try {
      return await Promise.race([ready, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.watcher?.stop();
    if (this.nc && !this.nc.isClosed()) {
      await this.flush();
      await this.nc.close().catch(() => undefined);
    }
  }

  /** Writes this process's changed counts now (also run every syncMs). */
  async flush(): Promise<void> {
    const kv = this.kv;
    if (!kv || this.flushing || !this.state?.connected) return;
    this.flushing = true;
    const counts = this.counters.takeDirty();
    try {
      const failed: OwnCount[] = [];
      await Promise.all(
        counts.map((c) =>
          kv
            .put(`${c.window}.${c.key}.${this.options.processId}`, String(c.own), { timeout: WRITE_TIMEOUT_MS })
            .catch(() => void failed.push(c)),
        ),
      );
      if (failed.length) this.counters.restoreDirty(failed);
    } finally {
      this.flushing = false;
    }
  }

  private async attach(): Promise<boolean> {
    while (!this.stopped) {
      try {
        if (!this.nc) {
          this.nc = await connect({
            servers: this.options.servers.split(','),
            name: 'gateway-rate-limit',
            maxReconnectAttempts: -1,
            reconnectTimeWait: 500,
          });
          this.state = new NatsConnectionState(this.nc);
        }
        this.kv ??= await new Kvm(this.nc).create(this.options.bucket, {
          ttl: ENTRY_TTL_MS,
          history: 1,
          storage: 'memory',
          replicas: this.options.replicas ?? 1,
        });
        await this.watch();
        this.timer ??= setInterval(() => void this.flush(), this.options.syncMs).unref();
        this.logger.log(`rate-limit counters shared through NATS KV bucket ${this.options.bucket}`);
        return true;
      } catch (err) {
        if (this.stopped) break;
        this.logger.warn(`rate-limit store unreachable (${String(err)}); limiting in this process alone meanwhile`);
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
    return false;
  }

  /** Starts a watch of the whole bucket and resolves once its current entries are applied; restarts it when it ends. */
  private async watch(): Promise<void> {
    const watch = await watchBucket(this.kv as KV, (e) => this.apply(e));
    this.watcher = watch;
    this.live = true;
    watch.ended
      .catch((err) => this.logger.warn(`rate-limit watch failed: ${String(err)}`))
      .finally(() => {
        this.live = false;
        if (!this.stopped && this.nc && !this.nc.isClosed()) setTimeout(() => this.rewatch(), RETRY_MS).unref();
      });
  }

  private rewatch(): void {
    if (this.stopped) return;
    this.watch().catch(() => setTimeout(() => this.rewatch(), RETRY_MS).unref());
  }

  private apply(e: KvWatchEntry): void {
    if (e.operation !== 'PUT') return;
    const parts = e.key.split('.');
    if (parts.length !== 4 || parts[3] === this.options.processId) return;
    const [window, policy, hash, process] = parts;
    this.counters.applyRemote(Number(window), `${policy}.${hash}`, process, Number(e.string()));
  }
}
