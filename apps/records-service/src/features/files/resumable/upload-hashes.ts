import { createHash, type Hash } from 'node:crypto';

interface Kept {
  /** SHA-256 (node:crypto) over bytes 0..offset of the upload. */
  hash: Hash;
  offset: number;
  /** When the upload expires (ms since the epoch): the entry goes with it. */
  expiresAt: number;
}

/**
 * The running SHA-256 of the open uploads whose bytes this instance receives, in
 * memory: one node:crypto hash per upload with the offset it covers. A hash counts
 * only when that offset is where the upload stands (the caller holds the upload's
 * lock); otherwise its bytes went through another instance, or through this one
 * before a restart, and the file is hashed once from storage when it completes.
 * At most `max` uploads are kept, the least recently written one dropped first.
 */
export class UploadHashes {
  /** In least recently written order (a Map iterates in insertion order). */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly max: number) {}

  /**
   * A hash to continue with from `offset`: a copy of the kept one when it covers
   * exactly bytes 0..offset (a refused chunk leaves the kept one intact), a new one at
   * offset 0, else undefined (and a kept hash of other bytes is dropped).
   */
  continueAt(id: string, offset: number): Hash | undefined {
    const kept = this.kept.get(id);
    if (kept?.offset === offset) return kept.hash.copy();
    this.kept.delete(id);
    return offset === 0 ? createHash('sha256') : undefined;
  }

  /** Keeps `hash` as the one over bytes 0..offset of the upload. */
  keep(id: string, hash: Hash, offset: number, expiresAt: Date): void {
    this.kept.delete(id);
    this.kept.set(id, { hash, offset, expiresAt: expiresAt.getTime() });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.max) break;
      this.kept.delete(oldest);
    }
  }

  /** Removes the upload's hash; returns it when it covers exactly bytes 0..offset. */
  take(id: string, offset: number): Hash | undefined {
    const kept = this.kept.get(id);
    this.kept.delete(id);
    return kept?.offset === offset ? kept.hash : undefined;
  }

  /** Forgets the upload (terminated or expired). */
  drop(id: string): void {
    this.kept.delete(id);
  }

  /** Forgets every upload past its expiry (another instance may have swept it). */
  dropExpired(now = Date.now()): void {
    for (const [id, kept] of this.kept) {
      if (kept.expiresAt <= now) this.kept.delete(id);
    }
  }

  get size(): number {
    return this.kept.size;
  }
}
