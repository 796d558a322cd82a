import type { KV, KvWatchEntry } from '@nats-io/kv';

/** A running watch of a whole KV bucket. */
export interface KvBucketWatch {
  stop(): void;
  /** Settles when the watch ends: resolves when it was stopped or its connection drained, rejects on a failure. */
  ended: Promise<void>;
}

/**
 * Watches every key of `bucket`, handing each entry to `apply`: first the entries the
 * bucket holds now (a replay), then every change. Resolves once the replay is applied,
 * so the caller's state is complete when it starts serving; a watch that ends before
 * its replay completes rejects.
 */
export async function watchBucket(bucket: KV, apply: (entry: KvWatchEntry) => void): Promise<KvBucketWatch> {
  const expected = (await bucket.status()).values;
  const watcher = await bucket.watch();
  let replayedSoFar = 0;
  let markReplayed!: () => void;
  const replayed = new Promise<void>((resolve) => (markReplayed = resolve));
  if (expected === 0) markReplayed();
  const ended = (async () => {
    for await (const entry of watcher) {
      apply(entry);
      replayedSoFar++;
      if (entry.isUpdate || replayedSoFar >= expected) markReplayed();
    }
  })();
  await Promise.race([
    replayed,
    ended.then(() => Promise.reject(new Error('the bucket watch ended before its replay completed'))),
  ]);
  return { stop: () => watcher.stop(), ended };
}
