/**
 * Unwrapped vault keys kept in memory for a short time after their last use, at most
 * `maxEntries` of them (the least recently used go first). Concurrent misses for the
 * same vault share one unwrap. Evicted secrets are zeroed.
 */
export class KeyCache {
  private readonly entries = new Map<string, { secret: Buffer; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async get(vaultId: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(vaultId);
    if (hit && hit.expiresAt > this.now()) {
      this.entries.delete(vaultId);
      this.entries.set(vaultId, { secret: hit.secret, expiresAt: this.now() + this.ttlMs });
      return Buffer.from(hit.secret);
    }
    if (hit) this.evict(vaultId);
    const pending = this.loading.get(vaultId);
    if (pending) return pending;
    const loaded = load().finally(() => this.loading.delete(vaultId));
    this.loading.set(vaultId, loaded);
    const secret = await loaded;
    if (this.ttlMs > 0) this.put(vaultId, secret);
    return secret;
  }

  evict(vaultId: string): void {
    const entry = this.entries.get(vaultId);
    if (!entry) return;
    entry.secret.fill(0);
    this.entries.delete(vaultId);
  }

  clear(): void {
    for (const id of [...this.entries.keys()]) this.evict(id);
  }

  private put(vaultId: string, secret: Buffer): void {
    this.entries.delete(vaultId);
    this.entries.set(vaultId, { secret: Buffer.from(secret), expiresAt: this.now() + this.ttlMs });
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.expiresAt > now) break;
      this.evict(id);
    }
  }
}
