import { Counter, Gauge } from 'prom-client';
import { exportMetrics } from '@vault/platform/observability';
import { DamageKind } from './encryption.errors';

/** Stored objects refused because they do not authenticate (tampered, truncated): alert on any. */
const rejectedObjects = new Counter({
  name: 'vault_encrypted_objects_rejected_total',
  help: 'Encrypted stored objects refused on read because they do not authenticate, by where the damage was found.',
  labelNames: ['kind'] as const,
  registers: [],
});

/** Live vault keys per KEK id: a rotation is done when only the active KEK has keys. */
const keysByKek = new Gauge({
  name: 'vault_keys_by_kek',
  help: 'Live vault keys wrapped by each key-encryption key (rotation progress).',
  labelNames: ['kek'] as const,
  registers: [],
});

export function exportEncryptionMetrics(): void {
  exportMetrics(rejectedObjects, keysByKek);
}

export function countRejectedObject(kind: DamageKind): void {
  rejectedObjects.inc({ kind });
}

export function setKeysByKek(counts: { kekId: string; count: number }[]): void {
  keysByKek.reset();
  for (const { kekId, count } of counts) keysByKek.set({ kek: kekId }, count);
}

/** Blobs still stored in plaintext (the encryption job's progress: done at 0). */
const plaintextBlobs = new Gauge({
  name: 'vault_plaintext_blobs',
  help: 'Stored blobs not encrypted yet (written before encryption at rest, or by a resumable upload); 0 when the job is done.',
  registers: [],
});

/** Blobs the encryption job encrypted, and those it could not (bytes not matching their SHA-256). */
const jobBlobs = new Counter({
  name: 'vault_blob_encryption_total',
  help: 'Blobs the background job encrypted (outcome=encrypted) or left as they were (outcome=mismatch: bytes not matching their SHA-256).',
  labelNames: ['outcome'] as const,
  registers: [],
});

export function exportJobMetrics(): void {
  exportMetrics(plaintextBlobs, jobBlobs);
}

export function setPlaintextBlobs(n: number): void {
  plaintextBlobs.set(n);
}

export function countJobBlob(outcome: 'encrypted' | 'mismatch'): void {
  jobBlobs.inc({ outcome });
}
