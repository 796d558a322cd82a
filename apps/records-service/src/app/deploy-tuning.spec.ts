import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChangeFeedEnv } from '../features/change-feed/change-feed.env';
import { WebhooksEnv } from '../features/webhooks/webhooks.env';

const ROOT = join(__dirname, '..', '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * Settings of the change feed and webhooks that are not tuning: the run modes (the shape of a
 * deployment, set by its Components), the targets allowed although private, and the keyring (a Secret).
 */
const NOT_TUNING = new Set(['CHANGE_FEED_WRITER', 'WEBHOOK_DISPATCHER', 'WEBHOOK_ALLOWED_TARGETS', 'WEBHOOK_SECRET_KEYS']);

/** The tuning settings of the change feed and of webhook delivery, with their defaults as the service reads them. */
const defaults = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries({ ...new ChangeFeedEnv(), ...new WebhooksEnv() })
      .filter(([name, value]) => /^(CHANGE_FEED|WEBHOOK)_/.test(name) && !NOT_TUNING.has(name) && value !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );

/** The settings a `NAME=value` file lists (also `# NAME=value`), each with the line before it. */
function listed(text: string, commented: boolean): Record<string, { value: string; before: string }> {
  const lines = text.split('\n');
  const pattern = commented ? /^# ([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  const out: Record<string, { value: string; before: string }> = {};
  lines.forEach((line, i) => {
    const m = pattern.exec(line);
    if (m && /^(CHANGE_FEED|WEBHOOK)_/.test(m[1]) && !NOT_TUNING.has(m[1]))
      out[m[1]] = { value: m[2], before: lines[i - 1] ?? '' };
  });
  return out;
}

describe('change-feed and webhook tuning in the deployment files', () => {
  const expected = defaults();

  it('knows the tuning settings', () => {
    expect(Object.keys(expected)).toEqual(
      expect.arrayContaining([
        'CHANGE_FEED_ACK_WAIT_MS',
        'CHANGE_FEED_RETENTION_DAYS',
        'WEBHOOK_CONCURRENCY',
        'WEBHOOK_RUN_MAX',
        'WEBHOOK_RETRY_SCHEDULE_MS',
      ]),
    );
  });

  it.each([
    ['deploy/k8s/base/records-service/config.env', false],
    ['deploy/compose/env.example', true],
  ])('%s lists every one at its default, each under a comment line', (path, commented) => {
    const settings = listed(read(path), commented);
    expect(Object.fromEntries(Object.entries(settings).map(([name, s]) => [name, s.value]))).toEqual(expected);
    for (const [name, { before }] of Object.entries(settings)) {
      expect([name, before]).toEqual([name, expect.stringMatching(/^# \S.*[^=]$/)]);
      expect(before).not.toMatch(/^# [A-Z][A-Z0-9_]*=/);
    }
  });

  it('docker-compose.yml passes every one from .env to records-service (unset: the default)', () => {
    const compose = read('docker-compose.yml');
    for (const name of Object.keys(expected)) expect(compose).toContain(`      ${name}: \${${name}:-}\n`);
  });
});
