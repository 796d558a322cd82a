import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../../src/app/jetstream-consumers';
import { uniqueNamespace, waitFor } from '../activity-log.harness';
import { meta, upload } from '../files-support';
import { Caller, RecordsTestApp } from '../support';

export const FIXTURES = join(__dirname, 'fixtures');
export const fixture = (name: string) => readFileSync(join(FIXTURES, name));

/** Settings that run the extractor processes from the TypeScript sources. */
export const EXTRACTOR_ENV = {
  SEARCH_EXTRACTOR_SCRIPT: join(__dirname, 'extractor-entry.ts'),
  SEARCH_EXTRACTOR_EXEC_ARGV: '-r @swc-node/register',
};

/** records-service with its own NATS, the relay and every consumer inline, files on disk, extraction inline. */
export class SearchTestApp {
  private constructor(
    readonly t: RecordsTestApp,
    private readonly nats: TestNatsServer,
    private readonly dir: string,
  ) {}

  static async start(tag: string, env: Record<string, string> = {}): Promise<SearchTestApp> {
    const nats = await TestNatsServer.start();
    const dir = mkdtempSync(join(tmpdir(), 'search-files-'));
    const t = await RecordsTestApp.start(`records_search_${tag}`, {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace(`search_${tag}`),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_RELAY: 'inline',
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      SEARCH_POLL_MS: '200',
      // a keyring of its own, not the working directory's development file: a process the
      // suite starts (the reindex command) runs from the repository's root, where that file
      // is another one when the suite runs from the app's folder (as `npm test` does)
      ENCRYPTION_KEYRING: `search-1:${randomBytes(32).toString('base64')}`,
      ...EXTRACTOR_ENV,
      ...env,
    });
    await startJetStreamConsumers(t.app);
    return new SearchTestApp(t, nats, dir);
  }

  async stop(): Promise<void> {
    await this.t?.stop();
    await this.nats?.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Uploads `bytes` as file `name` of the record and waits until its text is extracted or refused. */
  async uploadAndWait(c: Caller, vaultId: string, recordId: string, name: string, bytes: Buffer) {
    await upload(this.t, c, vaultId, recordId, { meta: meta(name), bytes, filename: name }).expect(201);
    return this.waitText(c, vaultId, recordId, name);
  }

  async waitText(c: Caller, vaultId: string, recordId: string, name: string) {
    const path = `/vault/vault-id/${vaultId}/records/record-id/${recordId}/record-files/${encodeURIComponent(name)}/text`;
    let body: { status: string; reason: string | null; pages: { page: number; text: string; ocr: boolean }[] } = {
      status: 'pending',
      reason: null,
      pages: [],
    };
    await waitFor(
      async () => {
        body = (await this.t.get(c, path).expect(200)).body;
        return body.status !== 'pending';
      },
      60_000,
      `the text of ${name}`,
    ).catch(async (e: Error) => {
      const rows = await this.t.sql(`SELECT status, reason, attempts, lease_until FROM file_texts`);
      const outbox = await this.t.sql(`SELECT subject, published_at FROM outbox_events ORDER BY occurred_at`);
      throw new Error(`${e.message}: ${JSON.stringify({ rows, outbox })}`);
    });
    return body;
  }

  /** GET /search as `c`; the body of a 200. */
  async find(c: Caller, q: string, extra: Record<string, string> = {}) {
    const res = await this.t
      .http()
      .get('/api/v1/search')
      .query({ q, ...extra })
      .set('Authorization', `Bearer ${c.token}`);
    if (res.status !== 200) throw new Error(`search ${q}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { data: Record<string, string | number>[]; nextCursor: string | null };
  }

  /** The file names a search finds for `c`, sorted. */
  async names(c: Caller, q: string, extra: Record<string, string> = {}): Promise<string[]> {
    return (await this.find(c, q, { limit: '50', ...extra })).data.map((h) => String(h.fileName)).sort();
  }
}
