import { ApplicationOriginsEntry, serializeOrigin } from '@vault/contracts';

/**
 * The union of the browser origins every client application registered, kept from the
 * entries of the developer module's bucket (one per application). An origin stays
 * allowed while at least one application lists it.
 */
export class AllowedOrigins {
  private readonly byEntry = new Map<string, string[]>();
  private readonly counts = new Map<string, number>();

  /** Sets (or, with `undefined`, removes) the origins of one bucket entry. */
  set(key: string, entry: Pick<ApplicationOriginsEntry, 'origins'> | undefined): void {
    for (const o of this.byEntry.get(key) ?? []) {
      const n = (this.counts.get(o) ?? 1) - 1;
      if (n > 0) this.counts.set(o, n);
      else this.counts.delete(o);
    }
    this.byEntry.delete(key);
    const origins = [
      ...new Set((entry?.origins ?? []).map((o) => (typeof o === 'string' ? serializeOrigin(o) : undefined))),
    ].filter((o): o is string => o !== undefined);
    if (origins.length === 0) return;
    this.byEntry.set(key, origins);
    for (const o of origins) this.counts.set(o, (this.counts.get(o) ?? 0) + 1);
  }

  /** True for an origin some application registered; the Origin header is compared as browsers send it. */
  has(origin: string): boolean {
    return this.counts.has(origin);
  }

  /** Number of distinct origins allowed. */
  get size(): number {
    return this.counts.size;
  }
}
