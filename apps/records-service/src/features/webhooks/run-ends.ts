import type {
  LeaseTerms,
  RunContinued,
  RunEnd,
  WebhookDeliveryRepository,
} from '../../persistence/webhooks/webhook-delivery.repository';

/** Runs' ends stored by one statement at most (the statement's size stays bounded). */
const GROUP_MAX = 100;

/**
 * Stores the ends of runs whose every event was delivered (their outcomes, and the next run of
 * each pair, WebhookDeliveryRepository.recordAndContinue) one statement at a time: the runs
 * that end while a statement is in flight go together in the next one. A run that ends alone
 * is stored at once; when many end together, each waits for one statement at most before its
 * own, and the database is sent one statement per group instead of one per run. A group whose
 * statement fails is stored again run by run, so that one run's end fails alone.
 */
export class RunEnds {
  private readonly queue: { end: RunEnd; answer: (c: RunContinued) => void; fail: (err: unknown) => void }[] = [];
  private storing = false;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    /** The lease of the next runs and the floor they are claimed up to, as known when a statement is sent. */
    private readonly terms: () => LeaseTerms & { horizon: number },
  ) {}

  /** Stores a run's end with the others that end meanwhile; answers what follows it. */
  store(end: RunEnd): Promise<RunContinued> {
    return new Promise((answer, fail) => {
      this.queue.push({ end, answer, fail });
      if (!this.storing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.storing = true;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, GROUP_MAX);
      try {
        const continued = await this.deliveries.recordAndContinue(
          group.map((g) => g.end),
          this.terms(),
        );
        group.forEach((g, i) => g.answer(continued[i]));
      } catch (err) {
        if (group.length === 1) group[0].fail(err);
        // one run's end must not fail the others': each is stored again on its own
        else
          for (const g of group)
            await this.deliveries.recordAndContinue([g.end], this.terms()).then(([c]) => g.answer(c), g.fail);
      }
    }
    this.storing = false;
  }
}
