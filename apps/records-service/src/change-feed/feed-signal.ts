import { Injectable } from '@nestjs/common';

/**
 * Wakes the open streams of a vault when this process's change-feed writer has committed
 * new events of it, so a stream does not wait for its next poll; streams served by
 * instances without the writer still find the events by polling.
 */
@Injectable()
export class FeedSignal {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves after `ms`, or as soon as events of the vault are written in this process. */
  wait(vaultId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(vaultId);
      if (!set) this.waiting.set(vaultId, (set = new Set()));
      const waiters = set;
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiting.get(vaultId) === waiters) this.waiting.delete(vaultId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Events of these vaults were committed: their waiting streams read now. */
  written(vaultIds: Iterable<string>): void {
    for (const vaultId of new Set(vaultIds)) for (const done of [...(this.waiting.get(vaultId) ?? [])]) done();
  }
}
