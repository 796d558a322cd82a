import { randomUUID } from 'node:crypto';
import { ActivityLogRepository, ActivityLogRow } from '../src/persistence/activity-log/activity-log.repository';
import { Caller, RecordsTestApp } from './support';

/**
 * Activity-log pages at a flat cost: totals from the counters the writer keeps, the
 * older half read from the oldest entry, and keyset cursors; every way of paging must
 * give the same order as the definition (occurred_at, logged_at, event_id, newest first),
 * ties included.
 */
describe('activity-log paging', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  let expected: string[];

  const row = (occurredAt: Date, over: Partial<ActivityLogRow> = {}): ActivityLogRow => ({
    eventId: randomUUID(),
    vaultId,
    tenantId: owner.tenantId,
    subject: 'vault.record.created',
    entity: 'Record',
    eventType: 'Create',
    action: 'created',
    actorOpenId: owner.openId,
    actorName: owner.username,
    vaultName: 'Paged',
    recordId: null,
    recordName: 'r',
    fileName: null,
    details: {},
    occurredAt,
    ...over,
  });
  const log = (query: Record<string, string | number>) =>
    t.get(
      owner,
      `/vault/vault-id/${vaultId}/log?${new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])))}`,
    );
  const ids = (res: { body: { data: { id: string }[] } }): string[] => res.body.data.map((e) => e.id);

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_log_paging');
    owner = await t.caller();
    vaultId = await t.createVault(owner);
    const entries = t.app.get(ActivityLogRepository);
    const base = Date.UTC(2026, 0, 1);
    // 3 batches (3 logged_at values); occurred_at has many ties inside and across batches
    const batches = [0, 1, 2].map((b) =>
      Array.from({ length: 23 }, (_, i) =>
        row(new Date(base + (i % 5) * 1000), {
          entity: i % 2 ? 'Record' : 'File',
          eventType: i % 3 ? 'Create' : 'Delete',
          actorOpenId: b === 1 ? 'vault|other' : owner.openId,
        }),
      ),
    );
    for (const batch of batches) {
      await entries.insertNew(batch);
      await new Promise((r) => setTimeout(r, 5));
    }
    // a redelivered batch inserts and counts nothing
    await entries.insertNew(batches[0]);
    const rows = await t.sql<{ event_id: string }>(
      `SELECT event_id FROM activity_log_entries WHERE vault_id = $1 ORDER BY occurred_at DESC, logged_at DESC, event_id DESC`,
      [vaultId],
    );
    expected = rows.map((r) => r.event_id);
  });
  afterAll(() => t?.stop());

  it("counts from the writer's counters, redeliveries excluded, filters summed", async () => {
    const [{ total }] = await t.sql<{ total: string }>(
      'SELECT sum(total) AS total FROM activity_log_counts WHERE vault_id = $1',
      [vaultId],
    );
    expect(Number(total)).toBe(69);
    expect(expected).toHaveLength(69);
    expect((await log({ pageSize: 10 }).expect(200)).body.page.totalItems).toBe(69);
    const [{ n: files }] = await t.sql<{ n: string }>(
      `SELECT count(*) AS n FROM activity_log_entries WHERE vault_id = $1 AND entity = 'File'`,
      [vaultId],
    );
    expect((await log({ entity: 'File' }).expect(200)).body.page.totalItems).toBe(Number(files));
    expect((await log({ senderOpenId: 'vault|other' }).expect(200)).body.page.totalItems).toBe(23);
  });

  it('gives every page by number in the defined order, the older half read from the end', async () => {
    for (const pageSize of [1, 7, 10, 69, 100]) {
      const seen: string[] = [];
      const pages = Math.ceil(69 / pageSize);
      for (let page = 1; page <= pages; page++) {
        const res = await log({ page, pageSize }).expect(200);
        expect(res.body.page).toMatchObject({ totalItems: 69, currentPage: page, totalPages: pages });
        seen.push(...ids(res));
      }
      expect(seen).toEqual(expected);
    }
    const past = await log({ page: 9, pageSize: 10 }).expect(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.page.nextCursor).toBeNull();
    expect(past.body.nextCursor).toBeNull();
  });

  it('walks the log by cursor in the same order, ties included, with filters', async () => {
    const walk = async (filters: Record<string, string>) => {
      const seen: string[] = [];
      let res = await log({ ...filters, pageSize: 4 }).expect(200);
      for (let page = 1; ; page++) {
        expect(res.body.page.currentPage).toBe(page);
        seen.push(...ids(res));
        // The top-level nextCursor of every list; the contract's page object carries the same value.
        expect(res.body.page.nextCursor).toBe(res.body.nextCursor);
        if (!res.body.nextCursor) break;
        res = await log({ ...filters, pageSize: 4, cursor: res.body.nextCursor }).expect(200);
      }
      return seen;
    };
    expect(await walk({})).toEqual(expected);
    const byNumber: string[] = [];
    for (let page = 1; page <= 3; page++)
      byNumber.push(...ids(await log({ entity: 'File', eventType: 'Delete', page, pageSize: 4 }).expect(200)));
    const filtered = await walk({ entity: 'File', eventType: 'Delete' });
    expect(filtered.slice(0, byNumber.length)).toEqual(byNumber);
    expect(filtered.length).toBeGreaterThan(0);
  });

  it('refuses a cursor that is forged, made for other filters, or sent with a page', async () => {
    const first = await log({ pageSize: 5 }).expect(200);
    const cursor: string = first.body.page.nextCursor;
    expect(typeof cursor).toBe('string');
    for (const res of [
      await log({ cursor: 'not-a-cursor' }),
      await log({ cursor: Buffer.from('["1","2","x",2,""]').toString('base64url') }),
      await log({ cursor, entity: 'File' }),
      await log({ cursor, page: 2 }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'cursor' })] });
    }
  });
});
