import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import type { Request, Response } from 'express';
import { AccessService, VaultAccess } from '../access/access.service';
import { ChangeFeedEnv } from './change-feed.env';
import { ChangeFeedService, FeedEvent } from './change-feed.service';
import { FeedSignal } from './feed-signal';

/** Events written per poll at most (the rest follow on the next poll, without waiting). */
const POLL_BATCH = 500;

/** One Server-Sent Events message: its id is the event's cursor. */
const sseMessage = (e: FeedEvent) => `id: ${e.cursor}\nevent: ${e.type}\ndata: ${JSON.stringify(e.envelope)}\n\n`;

/**
 * The live change feed as Server-Sent Events (docs/change-feed.md, Streaming): after the
 * start position, every poll re-checks the caller's access (the stream ends when it is
 * gone) and writes the new events it may see; a poll comes every CHANGE_FEED_POLL_MS, or
 * at once when this process writes events of the vault; a comment line keeps an idle
 * stream open.
 */
@Injectable()
export class ChangeFeedStream implements OnModuleDestroy {
  private readonly logger = new Logger('ChangeFeedStream');
  private readonly open = new Set<() => void>();

  constructor(
    private readonly feed: ChangeFeedService,
    private readonly access: AccessService,
    private readonly env: ChangeFeedEnv,
    private readonly signal: FeedSignal,
  ) {}

  /** Streams the vault's events after `cursor` (a Last-Event-ID or `cursor`) until the client leaves. */
  async serve(req: Request, res: Response, principal: Principal, vaultId: string, cursor: string | undefined, field: string) {
    let after = await this.feed.start(cursor, field);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': change feed\n\n');
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      this.open.delete(close);
      res.end();
    };
    this.open.add(close);
    req.on('close', close);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), this.env.CHANGE_FEED_HEARTBEAT_MS);
    try {
      while (!closed) {
        const access = await this.stillVisible(principal, vaultId);
        if (!access || closed) break;
        const events = await this.feed.read(access, principal, after, POLL_BATCH);
        if (closed) break;
        for (const e of events) res.write(sseMessage(e));
        after = events.at(-1)?.seq ?? after;
        if (events.length < POLL_BATCH) await this.signal.wait(vaultId, this.env.CHANGE_FEED_POLL_MS);
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
