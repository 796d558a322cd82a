import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreconditionFailedError, sha256Hex, toArray, VaultApiError, type FeedMessage, type VaultClient } from '@vault/sdk';
import { sdkFor } from '../support/sdk';

/** The walk-through of libs/sdk/README.md, step by step, against the real platform. */
describe('SDK walk-through (libs/sdk/README.md)', () => {
  let vault: VaultClient;
  let dir: string;
  let vaultId: string;
  let recordId: string;

  beforeAll(() => {
    vault = sdkFor('sid@alpha.example', 'sid-password-1');
    dir = mkdtempSync(join(tmpdir(), 'sdk-e2e-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('signs in, creates the account, a vault and a record', async () => {
    await vault.accounts.create({ username: 'sid@alpha.example', firstName: 'Sid', lastName: 'Sdk' });
    vaultId = await vault.vaults.create({ name: 'Family papers' });
    recordId = await vault.recordsApi.create(vaultId, {
      name: 'Passport',
      description: '',
      recordTypeName: 'identityDocs',
      recordSubtypeName: 'passport',
    });
    expect((await toArray(vault.vaults.licenses(vaultId))).length).toBe(1);
    const { data } = await vault.recordsApi.get(vaultId, recordId);
    expect(data.name).toBe('Passport');
  });

  it('changes a vault only at the version it read: a stale ETag is a typed 412', async () => {
    const read = await vault.vaults.get(vaultId);
    expect(read.etag).toMatch(/^"/);
    const changed = await vault.vaults.update(vaultId, { name: 'Family papers (2026)' }, { ifMatch: read.etag });
    expect(changed.data.name).toBe('Family papers (2026)');
    expect(changed.etag).not.toBe(read.etag);
    const stale = await vault.vaults.update(vaultId, { name: 'lost update' }, { ifMatch: read.etag }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect((stale as PreconditionFailedError).code).toBe('precondition_failed');
    expect((stale as PreconditionFailedError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a problem as a VaultApiError with its code and request id', async () => {
    const missing = await vault.vaults.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(VaultApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect((missing as VaultApiError).requestId).toBe((missing as VaultApiError).problem.requestId);
  });

  it('iterates every vault, page after page', async () => {
    const second = await vault.vaults.create({ name: 'Car papers' });
    const names = (await toArray(vault.vaults.list({ pageSize: 1 }))).map((v) => v.name);
    expect(names).toEqual(['Family papers (2026)', 'Car papers']);
    await vault.vaults.delete(second);
  });

  it('uploads a file resumably with its digest and downloads it checked', async () => {
    const file = join(dir, 'scan.pdf');
    writeFileSync(file, randomBytes(300 * 1024));
    const progress: number[] = [];
    const uploaded = await vault.files.upload({
      vaultId,
      recordId,
      file,
      chunkSize: 128 * 1024,
      contentType: 'application/pdf',
      onProgress: (sent) => progress.push(sent),
    });
    expect(uploaded.sha256).toBe(await sha256Hex(file));
    expect(progress.at(-1)).toBe(300 * 1024);
    const groups = await toArray(vault.files.groups(vaultId, recordId));
    expect(groups.flatMap((g) => g.files.map((f) => f.fileName))).toEqual(['scan.pdf']);
    const got = await vault.files.download(vaultId, recordId, 'scan.pdf', { to: join(dir, 'copy.pdf') });
    expect(got).toMatchObject({ size: 300 * 1024, sha256: uploaded.sha256, contentType: 'application/pdf' });
    expect(readFileSync(join(dir, 'copy.pdf')).equals(readFileSync(file))).toBe(true);
  });

  it('resumes a download from the bytes already on disk', async () => {
    const whole = readFileSync(join(dir, 'scan.pdf'));
    writeFileSync(join(dir, 'again.pdf.part'), whole.subarray(0, 1000));
    const downloaded = await vault.files.download(vaultId, recordId, 'scan.pdf', { to: join(dir, 'again.pdf') });
    expect(downloaded.resumed).toBe(false); // no ETag was kept with the bytes: it starts over
    writeFileSync(join(dir, 'third.pdf.part'), whole.subarray(0, 1000));
    writeFileSync(join(dir, 'third.pdf.part-etag'), `"${downloaded.sha256}"`);
    const resumed = await vault.files.download(vaultId, recordId, 'scan.pdf', { to: join(dir, 'third.pdf') });
    expect(resumed).toMatchObject({ resumed: true, sha256: downloaded.sha256 });
  });

  it('reads the activity log and the change feed', async () => {
    await eventually(async () => {
      const actions = (await toArray(vault.activity.log(vaultId, { pageSize: 2 }))).map((e) => `${e.entity}:${e.action}`);
      expect(actions).toEqual(expect.arrayContaining(['Vault:created', 'Record:created', 'File:uploaded']));
    });
    const types = (await toArray(vault.activity.feed(vaultId, { limit: 2 }))).map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['vault.created', 'record.created']);
  });

  it('follows the live feed and resumes after the last event it saw', async () => {
    const first = await firstMessages(vault, vaultId, 2);
    expect(first.map((m) => m.type)).toEqual(['vault.created', 'record.created']);
    const resumed = await firstMessages(vault, vaultId, 1, first[0].cursor);
    expect(resumed[0].event.id).toBe(first[1].event.id);
    // Live: from the feed's head, the next change arrives on the open stream.
    let head: string | undefined;
    for (let page = await vault.activity.feedPage(vaultId); ; page = await vault.activity.feedPage(vaultId, { cursor: head })) {
      head = page.nextCursor;
      if (!page.hasMore) break;
    }
    // (events of earlier changes may still reach the feed after `head`: wait for the record's)
    const live = firstMessages(vault, vaultId, 1, head, (m) => m.type === 'record.created');
    await vault.recordsApi.create(vaultId, {
      name: 'Deed',
      description: '',
      recordTypeName: 'identityDocs',
      recordSubtypeName: 'passport',
    });
    const [message] = await live;
    expect(message.type).toBe('record.created');
    expect(message.event.data).toMatchObject({ record: { name: 'Deed' } });
  });
});

/** The first `n` messages of the live feed from `lastEventId`; then stops following. */
async function firstMessages(
  vault: VaultClient,
  vaultId: string,
  n: number,
  lastEventId?: string,
  keep: (m: FeedMessage) => boolean = () => true,
): Promise<FeedMessage[]> {
  const stop = new AbortController();
  const out: FeedMessage[] = [];
  for await (const message of vault.activity.follow(vaultId, { lastEventId, signal: stop.signal })) {
    if (keep(message)) out.push(message);
    if (out.length === n) break;
  }
  stop.abort();
  return out;
}

/** Retries `check` until it passes (the log is written from events, shortly after the change). */
async function eventually(check: () => Promise<void>, tries = 100): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
