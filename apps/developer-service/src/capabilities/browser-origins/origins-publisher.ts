import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { ApplicationOriginsEntry, corsOriginsBucket, corsOriginsKey } from '@vault/contracts';
import { NATS_CONNECTION } from '@vault/platform/events';
import { DeveloperEnv } from '../../config/developer.env';
import { ApplicationRepository } from '../../persistence/tenants/application.repository';

/** How often the bucket is brought in line with the database again (a NATS that lost it is refilled). */
const RECONCILE_MS = 5 * 60_000;
/** Wait before trying again when NATS did not take the entries. */
const RETRY_MS = 5_000;
const WRITE_TIMEOUT_MS = 3_000;

/** What changed in the bucket in one pass. */
export interface PublishSummary {
  written: number;
  removed: number;
}

/**
 * Publishes the browser origins of every client application into the JetStream KV bucket
 * the gateway watches (`cors_origins`, namespaced like the event streams): one entry per
 * application with origins, none for the others. Runs once the bootstrap file is applied,
 * then every five minutes; each pass writes only entries that differ and removes those of
 * applications without origins, so replicas running it together agree. The gateway never
 * calls this module on a request: it answers from what it watched last.
 */
@Injectable()
export class OriginsPublisher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('BrowserOrigins');
  private kv?: KV;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly env: DeveloperEnv,
    private readonly applications: ApplicationRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.pass();
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Brings the bucket in line with the database now. */
  async publish(): Promise<PublishSummary> {
    this.kv ??= await new Kvm(this.nc).create(corsOriginsBucket(this.env.EVENTS_NAMESPACE), {
      history: 1,
      replicas: this.env.KV_REPLICAS,
    });
    const kv = this.kv;
    const wanted = new Map<string, ApplicationOriginsEntry>();
    for (const a of await this.applications.origins()) {
      if (a.allowedOrigins.length === 0) continue;
      wanted.set(corsOriginsKey(a.clientId), {
        clientId: a.clientId,
        tenantId: a.tenantId,
        origins: a.allowedOrigins,
        publishedAt: '',
      });
    }
    const summary: PublishSummary = { written: 0, removed: 0 };
    for await (const key of await kv.keys()) {
      if (!wanted.has(key)) {
        await kv.delete(key);
        summary.removed++;
      }
    }
    for (const [key, entry] of wanted) {
      const current = await kv.get(key);
      const stored = current?.operation === 'PUT' ? safeJson(current.string()) : undefined;
      if (stored && stored.tenantId === entry.tenantId && stored.origins?.join('\n') === entry.origins.join('\n')) continue;
      await kv.put(key, JSON.stringify({ ...entry, publishedAt: new Date().toISOString() }), { timeout: WRITE_TIMEOUT_MS });
      summary.written++;
    }
    return summary;
  }

  private async pass(): Promise<void> {
    let next = RECONCILE_MS;
    try {
      const { written, removed } = await this.publish();
      if (written || removed) this.logger.log(`browser origins published: ${written} application(s) written, ${removed} removed`);
    } catch (err) {
      this.logger.warn(`browser origins not published (${String(err)}); retrying`);
      next = RETRY_MS;
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.pass(), next).unref();
  }
}

function safeJson(text: string): Partial<ApplicationOriginsEntry> | undefined {
  try {
    return JSON.parse(text) as Partial<ApplicationOriginsEntry>;
  } catch {
    return undefined;
  }
}
