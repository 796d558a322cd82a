import type { FileStorage } from './file-storage';

/** What the database says about storage keys (StorageAudit.run). */
export interface KnownKeys {
  /** Keys of blobs: each must have a complete object. */
  blobs: Set<string>;
  /** Keys queued for removal (uploads not committed yet, removals not done yet): may or may not exist. */
  queued: Set<string>;
  /** Keys of open resumable uploads: partial bytes expected. */
  uploading: Set<string>;
  /** Keys record files name that no blob holds (a row pointing at bytes nobody counts). */
  unblobbedFiles: string[];
}

/** Orphans both ways. */
export interface AuditReport {
  /** Keys the store holds something of that no row knows (bytes nobody will ever read or remove). */
  orphanObjects: string[];
  /** Keys of blobs (or record files) without a complete object in the store (rows pointing at missing bytes). */
  missingObjects: string[];
  /** How many keys the store listed, how many blobs the database has. */
  storedKeys: number;
  blobs: number;
}

/** Compares the store's keys with the database's (npm run storage:audit). */
export async function auditStorage(storage: FileStorage, known: KnownKeys): Promise<AuditReport> {
  const complete = new Set<string>();
  const orphans = new Set<string>();
  let storedKeys = 0;
  for await (const { key, complete: whole } of storage.list()) {
    storedKeys += 1;
    if (whole) complete.add(key);
    if (!known.blobs.has(key) && !known.queued.has(key) && !known.uploading.has(key)) orphans.add(key);
  }
  const missing = [...known.blobs].filter((k) => !complete.has(k) && !known.queued.has(k));
  return {
    orphanObjects: [...orphans].sort(),
    missingObjects: [...new Set([...missing, ...known.unblobbedFiles])].sort(),
    storedKeys,
    blobs: known.blobs.size,
  };
}
