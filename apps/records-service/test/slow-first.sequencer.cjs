// @ts-check
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * About how many seconds these spec files take in a clean CI run (no jest cache; the kill
 * specs of file versions are the two halves of one 94 s file). Most are small files that
 * start processes (service instances, nats-servers, the loopback S3, OCR): jest's order
 * without a cache, by file size, would start them last, and the run would end with one
 * worker waiting for the other. Paths are relative to the app's folder.
 */
const MEASURED_SECONDS = {
  'test/webhooks-delivery.spec.ts': 51,
  'test/file-versions-kill.spec.ts': 45,
  'test/change-feed-restart.spec.ts': 37,
  'test/vault-keys-kill.spec.ts': 35,
  'test/file-versions-kill-s3.spec.ts': 30,
  'test/search/search.spec.ts': 27,
  'test/search/extraction.spec.ts': 26,
};

/**
 * jest's order (the last run's failures first, then the longest first) where jest has no
 * timing of its own (a fresh clone: CI) takes MEASURED_SECONDS, and puts the files with a
 * timing or a measure first, longest first, the others after them by size.
 */
class SlowFirstSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    /** @type {Map<string, number>} */
    const sizes = new Map();
    const size = (/** @type {import('@jest/test-result').Test} */ t) => {
      if (!sizes.has(t.path)) sizes.set(t.path, t.context.hasteFS.getSize(t.path) ?? 0);
      return sizes.get(t.path) ?? 0;
    };
    const measure = (/** @type {import('@jest/test-result').Test} */ t) => {
      const known = MEASURED_SECONDS[/** @type {keyof typeof MEASURED_SECONDS} */ (relative(t.context.config.rootDir, t.path))];
      return this.time(t) ?? (known === undefined ? undefined : known * 1000);
    };
    for (const t of tests) t.duration = measure(t);
    return [...tests].sort((a, b) => {
      const failed = Number(this.hasFailed(b)) - Number(this.hasFailed(a));
      if (failed) return failed;
      if ((a.duration === undefined) !== (b.duration === undefined)) return a.duration === undefined ? 1 : -1;
      if (a.duration !== undefined && b.duration !== undefined) return b.duration - a.duration;
      return size(b) - size(a);
    });
  }
}

module.exports = SlowFirstSequencer;
