import { Caller, RecordsTestApp } from './support';

/** Optional paging of the record search: the contract's array without it, `{data, page, nextCursor}` with it. */
describe('record search paging', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  let all: { id: string; name: string }[];

  const search = (query: Record<string, string | number>) =>
    t.get(
      owner,
      `/vault/vault-id/${vaultId}/records?${new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])))}`,
    );

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_search_paging');
    owner = await t.caller();
    vaultId = await t.createVault(owner);
    for (let i = 0; i < 25; i++) await t.createRecord(owner, vaultId, { name: i % 5 === 0 ? `Deed ${i}` : `Note ${i}` });
    all = (await search({}).expect(200)).body;
  });
  afterAll(() => t?.stop());

  it('keeps the plain array when neither page nor pageSize is given', () => {
    expect(Array.isArray(all)).toBe(true);
    expect(all).toHaveLength(25);
  });

  it('pages the same order with a page object, and past the end gives an empty page', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await search({ page, pageSize: 10 }).expect(200);
      expect(res.body.page).toEqual({
        totalItems: 25,
        currentPage: page,
        pageSize: 10,
        totalPages: 3,
        startPage: 1,
        endPage: 3,
        startIndex: (page - 1) * 10,
        endIndex: Math.min(page * 10, 25) - 1,
        pages: [1, 2, 3],
      });
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
    }
    expect(seen).toEqual(all.map((r) => r.id));
    const past = await search({ page: 4, pageSize: 10 }).expect(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.page.totalItems).toBe(25);
  });

  it('pages filtered results, defaults the other parameter, and counts only matches', async () => {
    const deeds = await search({ name: 'deed', pageSize: 2 }).expect(200);
    expect(deeds.body.page).toMatchObject({ totalItems: 5, currentPage: 1, pageSize: 2, totalPages: 3 });
    expect(deeds.body.data.map((r: { name: string }) => r.name)).toEqual(
      all
        .filter((r) => r.name.startsWith('Deed'))
        .slice(0, 2)
        .map((r) => r.name),
    );
    const byPage = await search({ page: 2 }).expect(200);
    expect(byPage.body.page).toMatchObject({ pageSize: 20, currentPage: 2 });
    expect(byPage.body.data).toHaveLength(5);
    const none = await search({ recordTypeName: 'noSuchType', page: 1 }).expect(200);
    expect(none.body).toEqual({ data: [], page: expect.objectContaining({ totalItems: 0, totalPages: 1 }), nextCursor: null });
  });

  it('continues from nextCursor with the same filters and page size, to null on the last page', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let res = await search({ name: 'note', pageSize: 7 }).expect(200);
    for (;;) {
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      pages.push(res.body.page.currentPage);
      if (res.body.nextCursor === null) break;
      res = await search({ name: 'note', cursor: res.body.nextCursor }).expect(200);
      expect(res.body.page.pageSize).toBe(7);
    }
    expect(pages).toEqual([1, 2, 3]);
    expect(seen).toEqual(all.filter((r) => r.name.startsWith('Note')).map((r) => r.id));
    const first = await search({ pageSize: 7 }).expect(200);
    const cases: Record<string, string | number>[] = [{ cursor: 'not-a-cursor' }, { cursor: first.body.nextCursor, page: 2 }];
    for (const query of cases) {
      const bad = await search(query).expect(400);
      expect(bad.body).toMatchObject({ code: 'validation_failed', requestId: expect.any(String) });
      expect(bad.body.errors[0].field).toBe('cursor');
    }
  });

  it('refuses page sizes and pages out of range', async () => {
    const cases: Record<string, string | number>[] = [{ pageSize: 0 }, { pageSize: 101 }, { page: 0 }, { page: 'x' }];
    for (const query of cases) {
      const res = await search(query).expect(400);
      expect(res.body.errors[0].field).toBe(Object.keys(query)[0]);
    }
  });

  it('describes both answer shapes and the parameters in the OpenAPI document', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
    const op = doc.paths['/vault/vault-id/{vaultId}/records'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['page', 'pageSize']));
    expect(JSON.stringify(op.responses['200'])).toContain('RecordSearchPage');
    expect(doc.components.schemas.RecordSearchPage.properties.page.$ref).toContain('PageInfoDto');
  });
});
