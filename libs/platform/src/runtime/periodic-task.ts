import type { LoggerService } from '@nestjs/common';

/**
 * A job an instance runs every `intervalMs` while the app runs (pruning, scheduled
 * removals): a failed run is logged as a warning naming `what` and the next one runs
 * on time. The timer does not keep the process alive; `stop()` ends it.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly logger: Pick<LoggerService, 'warn'>,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => {
      this.run().catch((err: unknown) => this.logger.warn(`${this.what} failed: ${String(err)}`));
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
