import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import type { Request, Response } from 'express';
import { AccessService, VaultAccess } from '../../capabilities/access/access.service';
import { ChangeFeedEnv } from './change-feed.env';
import { tooManyStreams } from './change-feed.errors';
import { ChangeFeedService } from './change-feed.service';
import { StreamSlots } from './stream-slots';
import { FEED_READ_BATCH, FeedSubscriber, sseMessage, VaultFeedReaders } from './vault-feed-readers';

/** Resolves once the response has room again (or is gone). */
const drained = (res: Response) =>
  new Promise<void>((resolve) => {
    if (!res.writableNeedDrain || res.destroyed) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/**
 * The live change feed as Server-Sent Events (docs/change-feed.md, Streaming). A stream
 * first catches up on its own from its start position, at its client's pace (checking
 * access before each page); then it joins its vault's reader in this process, which
 * reads new events once for all the vault's streams and hands them over. A stream that
 * still has more than CHANGE_FEED_STREAM_BUFFER_BYTES unsent when the next events come
 * is closed (its client resumes with Last-Event-ID); a comment line keeps an idle stream
 * open. Streams per caller and per tenant are capped (CHANGE_FEED_MAX_STREAMS_PER_CALLER,
 * CHANGE_FEED_MAX_STREAMS_PER_TENANT).
 */
@Injectable()
export class ChangeFeedStream implements OnModuleDestroy {
  private readonly logger = new Logger('ChangeFeedStream');
  private readonly open = new Set<() => void>();
  private readonly slots: StreamSlots;

  constructor(
    private readonly feed: ChangeFeedService,
    private readonly access: AccessService,
    private readonly env: ChangeFeedEnv,
    private readonly readers: VaultFeedReaders,
  ) {
    this.slots = new StreamSlots(env.CHANGE_FEED_MAX_STREAMS_PER_CALLER, env.CHANGE_FEED_MAX_STREAMS_PER_TENANT);
  }

  /**
   * Streams the vault's events after `cursor` (a Last-Event-ID or `cursor`) until the client
   * leaves, in one of the caller's and its tenant's stream slots (429 with Retry-After when
   * either cap is reached, before anything is read).
   */
  async serve(req: Request, res: Response, principal: Principal, vaultId: string, cursor: string | undefined, field: string) {
    const slot = this.slots.take(principal.tenantId, principal.openId);
    if ('refused' in slot) {
      const max =
        slot.refused === 'caller' ? this.env.CHANGE_FEED_MAX_STREAMS_PER_CALLER : this.env.CHANGE_FEED_MAX_STREAMS_PER_TENANT;
      this.logger.warn(`change feed stream of vault ${vaultId} refused: the ${slot.refused} holds ${max} open streams`);
      throw tooManyStreams(slot.refused, max, this.env.CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS);
    }
    try {
      await this.stream(req, res, principal, { vaultId, cursor, field });
    } finally {
      slot.release();
    }
  }

  private async stream(req: Request, res: Response, principal: Principal, { vaultId, cursor, field }: StreamRequest) {
    let after = await this.feed.start(cursor, field);
    openEventStream(res);
    let closed = false;
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const close = (drop = false) => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      this.open.delete(close);
      this.readers.leave(vaultId, live);
      if (drop) res.destroy();
      else res.end();
      ended();
    };
    const live: FeedSubscriber = {
      caller: { tenantId: principal.tenantId, openId: principal.openId },
      position: 0n,
      deliver: (events, to) => {
        if (closed) return;
        if (events.length > 0 && res.writableLength > this.env.CHANGE_FEED_STREAM_BUFFER_BYTES) {
          this.logger.warn(
            `change feed stream of vault ${vaultId} closed: its client is too far behind (${res.writableLength} bytes unsent)`,
          );
          close(true);
          return;
        }
        if (events.length > 0) res.write(events.map((e) => e.message).join(''));
        if (to > live.position) live.position = to;
      },
      lost: () => close(),
    };
    this.open.add(close);
    req.on('close', () => close());
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), this.env.CHANGE_FEED_HEARTBEAT_MS);
    try {
      while (!closed) {
        const access = await this.stillVisible(principal, vaultId);
        if (!access || closed) break;
        const events = await this.feed.read(access, principal, after, FEED_READ_BATCH);
        if (closed) break;
        if (events.length > 0) res.write(events.map(sseMessage).join(''));
        after = events.at(-1)?.seq ?? after;
        if (events.length < FEED_READ_BATCH) {
          live.position = BigInt(after);
          this.readers.join(vaultId, live);
          await done;
        } else await drained(res);
      }
    } catch (err) {
      this.logger.warn(`change feed stream of vault ${vaultId} ended: ${String(err)}`);
    } finally {
      close();
    }
  }

  onModuleDestroy(): void {
    for (const close of [...this.open]) close();
  }

  /** The caller's access now, or undefined once the vault is no longer visible to it. */
  private async stillVisible(principal: Principal, vaultId: string): Promise<VaultAccess | undefined> {
    try {
      return await this.access.visibleVault(principal, vaultId);
    } catch (err) {
      if (err instanceof ProblemException) return undefined;
      throw err;
    }
  }
}

/** The vault and the position a stream starts from (`cursor`, read from `field`). */
interface StreamRequest {
  vaultId: string;
  cursor: string | undefined;
  field: string;
}

/** The answer's head: an event stream that proxies must neither buffer nor transform. */
function openEventStream(res: Response): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': change feed\n\n');
}
