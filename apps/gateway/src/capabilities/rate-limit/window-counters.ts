/** Length of every rate-limit window: fixed windows aligned on the minute (UTC clock). */
export const WINDOW_MS = 60_000;

/** One counted key in one window: this process's requests and the latest totals other processes reported. */
interface Count {
  own: number;
  others: Map<string, number>;
  othersTotal: number;
}

/** A count of this process not yet written to the shared store. */
export interface OwnCount {
  window: number;
  key: string;
  own: number;
}

/**
 * Request counts per key and fixed window, local-first: a request is counted
 * here at once and checked against this process's own count plus the counts
 * other gateway processes last reported (NatsCounterSync carries them both
 * ways). Without a shared store it is a plain in-memory limiter. Only the
 * current window and the next one (a peer whose clock runs ahead) are kept.
 */
export class WindowCounters {
  private readonly windows = new Map<number, Map<string, Count>>();
  private dirty = new Map<string, OwnCount>();
  private current = 0;

  static windowOf(now: number): number {
    return Math.floor(now / WINDOW_MS);
  }

  /** Requests counted in `window` for `key`, by every process this one knows of. */
  total(window: number, key: string): number {
    const c = this.windowMap(window, false)?.get(key);
    return c ? c.own + c.othersTotal : 0;
  }

  /** Counts `n` requests of this process (negative to take back). */
  add(window: number, key: string, n: number): void {
    const map = this.windowMap(window, true);
    if (!map) return;
    let c = map.get(key);
    if (!c) map.set(key, (c = { own: 0, others: new Map(), othersTotal: 0 }));
    c.own = Math.max(0, c.own + n);
    this.dirty.set(`${window} ${key}`, { window, key, own: c.own });
  }

  /** The total another process reported for `key` in `window` (it replaces that process's earlier report). */
  applyRemote(window: number, key: string, process: string, count: number): void {
    const map = this.windowMap(window, true);
    if (!map || !Number.isFinite(count) || count < 0) return;
    let c = map.get(key);
    if (!c) map.set(key, (c = { own: 0, others: new Map(), othersTotal: 0 }));
    c.othersTotal += count - (c.others.get(process) ?? 0);
    c.others.set(process, count);
  }

  /** This process's counts changed since the last call (of windows still kept). */
  takeDirty(): OwnCount[] {
    const out = [...this.dirty.values()].filter((d) => this.windows.has(d.window));
    this.dirty = new Map();
    return out;
  }

  /** Puts counts back that could not be written (unless a newer count of the same key is pending). */
  restoreDirty(counts: OwnCount[]): void {
    for (const d of counts) {
      const id = `${d.window} ${d.key}`;
      if (!this.dirty.has(id)) this.dirty.set(id, d);
    }
  }

  /** Keys counted in the current window (for tests and diagnostics). */
  get size(): number {
    return this.windows.get(this.current)?.size ?? 0;
  }

  /** The map of `window`, dropping windows that ended; undefined for windows too old or too far ahead. */
  private windowMap(window: number, create: boolean): Map<string, Count> | undefined {
    const now = WindowCounters.windowOf(Date.now());
    if (now !== this.current) {
      this.current = now;
      for (const w of this.windows.keys()) if (w < now) this.windows.delete(w);
    }
    if (window < now || window > now + 1) return undefined;
    let map = this.windows.get(window);
    if (!map && create) this.windows.set(window, (map = new Map()));
    return map;
  }
}
