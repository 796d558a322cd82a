import { once } from 'node:events';
import { SUBJECTS } from '@vault/contracts';
import type { JetStreamEvent } from '@vault/platform/events';
import { spawnAppEntry } from '@vault/platform/testing';
import { Caller } from '../support';
import { meta, upload } from '../files-support';
import { EXTRACTOR_VERSION } from '../../src/capabilities/text-extraction/extraction.types';
import { SearchReindex } from '../../src/features/search/search-reindex';
import { TextExtractionConsumer } from '../../src/features/search/text-extraction.consumer';
import { TextJobRepository } from '../../src/persistence/search-index/text-jobs.repository';
import { fixture, SearchTestApp } from './search-support';

describe('content search (real NATS, PostgreSQL and extractor processes)', () => {
  jest.setTimeout(180_000);
  let s: SearchTestApp;
  let owner: Caller;
  let vault: string;
  let policyRecord: string;
  let noteRecord: string;

  beforeAll(async () => {
    s = await SearchTestApp.start('api');
    // whether the transaction writing each extraction's event set synchronous_commit itself (a
    // SET LOCAL shows as the session's source, whatever the server's own setting)
    await s.t.sql(`CREATE TABLE event_durability (file_name text NOT NULL, set_here boolean NOT NULL)`);
    await s.t.sql(`CREATE FUNCTION event_durability() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO event_durability VALUES (NEW.payload->>'fileName',
          (SELECT source = 'session' FROM pg_settings WHERE name = 'synchronous_commit'));
        RETURN NULL;
      END $$`);
    await s.t.sql(`CREATE TRIGGER event_durability AFTER INSERT ON outbox_events FOR EACH ROW
      WHEN (NEW.subject = '${SUBJECTS.fileTextExtracted}') EXECUTE FUNCTION event_durability()`);
    owner = await s.t.caller();
    vault = await s.t.createVault(owner, { name: 'Household' });
    policyRecord = await s.t.createRecord(owner, vault, { name: 'Insurance policy' });
    noteRecord = await s.t.createRecord(owner, vault, { name: 'Notes' });
    for (const name of ['policy.pdf', 'policy.docx', 'policy.odt', 'policy.txt']) {
      const text = await s.uploadAndWait(owner, vault, policyRecord, name, fixture(name));
      expect({ name, status: text.status }).toEqual({ name, status: 'extracted' });
    }
    await s.uploadAndWait(owner, vault, noteRecord, 'note.txt', Buffer.from('A flood note, nothing else.\n'));
  });
  afterAll(() => s?.stop());

  const POLICY_FILES = ['policy.docx', 'policy.odt', 'policy.pdf', 'policy.txt'];

  it('finds every kind of document by a word of its text, with highlighted snippets and the event', async () => {
    const page = await s.find(owner, 'hausratversicherung');
    expect(page.data.map((h) => h.fileName).sort()).toEqual(POLICY_FILES);
    expect(page.data[0]).toMatchObject({ vaultId: vault, recordId: policyRecord, recordName: 'Insurance policy', page: 1 });
    expect(typeof page.data[0].versionId).toBe('string');
    expect(page.data[0].score).toBeGreaterThan(0);
    expect(page.data[0].snippet).toContain('<mark>Hausratversicherung</mark>');
    const events = await s.t.outbox(SUBJECTS.fileTextExtracted);
    expect(events.map((e) => e.payload.fileName).sort()).toEqual(['note.txt', ...POLICY_FILES].sort());
    expect(events.find((e) => e.payload.fileName === 'policy.pdf')?.payload).toMatchObject({ status: 'extracted', pages: 1 });
  });

  it("commits an extraction with its event as durably as the session's writes: no event of a completion a crash can lose", async () => {
    const rows = await s.t.sql<{ file_name: string; set_here: boolean }>(`SELECT file_name, set_here FROM event_durability`);
    expect(rows.map((r) => r.file_name).sort()).toEqual(['note.txt', ...POLICY_FILES].sort());
    expect(rows.filter((r) => r.set_here)).toEqual([]);
  });

  it('answers the golden queries: umlauts, word parts, phrases and excluded words', async () => {
    expect(await s.names(owner, 'Buero')).toEqual(POLICY_FILES);
    expect(await s.names(owner, 'Büro')).toEqual(POLICY_FILES);
    expect(await s.names(owner, 'Zuerich')).toEqual(POLICY_FILES);
    expect(await s.names(owner, 'versicherung')).toEqual(POLICY_FILES);
    expect(await s.names(owner, '"flood damage"')).toEqual(POLICY_FILES);
    expect(await s.names(owner, '"damage flood"')).toEqual([]);
    expect(await s.names(owner, 'flood -earthquake')).toEqual(['note.txt']);
    expect(await s.names(owner, 'flood', { recordType: 'identityDocs', vaultId: vault })).toHaveLength(5);
    expect(await s.names(owner, 'flood', { recordType: 'financial' })).toEqual([]);
  });

  it('highlights the words as the page spells them: Buero marks Büro, a word part its whole word', async () => {
    const snippets = async (q: string) =>
      (await s.find(owner, q, { limit: '50' })).data.map((h) => `${h.fileName}: ${h.snippet}`).sort();
    for (const q of ['Buero', 'Büro', 'BUERO']) {
      const found = await snippets(q);
      expect(found).toHaveLength(POLICY_FILES.length);
      for (const snippet of found) expect(snippet).toContain('<mark>Büro</mark>');
    }
    for (const snippet of await snippets('Zuerich')) expect(snippet).toContain('<mark>Zürich</mark>');
    for (const snippet of await snippets('versicherung')) expect(snippet).toContain('<mark>Hausratversicherung</mark>');
    // only the words that match: nothing else in the page is marked
    const marked = (await snippets('Buero')).flatMap((t) => t.match(/<mark>[^<]*<\/mark>/g) ?? []);
    expect([...new Set(marked)]).toEqual(['<mark>Büro</mark>']);
  });

  it('weighs the record name: a renamed record is found by its new name', async () => {
    await s.t
      .put(owner, `/vault/vault-id/${vault}/records/record-id/${noteRecord}`, recordBodyNamed('Kitchen ledger'))
      .expect(200);
    await waitUntil(async () => (await s.names(owner, 'ledger')).includes('note.txt'));
  });

  it('re-weighs the pages of every record a batch of events renamed, in one statement', async () => {
    const first = await s.t.createRecord(owner, vault, { name: 'Batch one' });
    const second = await s.t.createRecord(owner, vault, { name: 'Batch two' });
    await s.uploadAndWait(owner, vault, first, 'one.txt', Buffer.from('plain words one\n'));
    await s.uploadAndWait(owner, vault, second, 'two.txt', Buffer.from('plain words two\n'));
    // renamed without their events: only the batch below re-weighs the pages
    await s.t.sql(`UPDATE records SET name = 'Quarterly almanac' WHERE id = ANY($1::uuid[])`, [[first, second]]);
    const consumer = s.t.app.get(TextExtractionConsumer);
    const jobs = s.t.app.get(TextJobRepository);
    const statements = jest.spyOn(jobs, 'retokenize');
    const event = (recordId: string, sequence: number): JetStreamEvent<{ record: { id: string } }> => ({
      id: `batch-${sequence}`,
      subject: SUBJECTS.recordUpdated,
      data: { record: { id: recordId } },
      sequence,
      deliveryCount: 1,
    });
    try {
      await consumer.receive([event(first, 1), event(second, 2), event(first, 3)]);
      expect(statements.mock.calls).toEqual([['record', [first, second]]]);
    } finally {
      statements.mockRestore();
    }
    expect((await s.names(owner, 'almanac')).sort()).toEqual(['one.txt', 'two.txt']);
    // records without file text are looked at first, and leave nothing to re-weigh
    const bare = await s.t.createRecord(owner, vault, { name: 'Bare almanac' });
    expect(await jobs.retokenize('record', [bare])).toBe(0);
    expect(await jobs.retokenize('record', [bare, second])).toBe(1);
    await s.t.sql(`UPDATE records SET name = 'Weekly gazette' WHERE id = $1`, [second]);
    expect(await jobs.retokenize('record', [second, bare])).toBe(1);
    expect(await s.names(owner, 'gazette')).toEqual(['two.txt']);
  });

  it('follows the current version: a new one replaces the text, a restored one is back without extraction', async () => {
    const record = await s.t.createRecord(owner, vault, { name: 'Versioned' });
    await s.uploadAndWait(owner, vault, record, 'v.txt', Buffer.from('first alphamarker text'));
    await upload(s.t, owner, vault, record, {
      meta: meta('v.txt', { replace: 'true' }),
      bytes: Buffer.from('second betamarker text'),
      filename: 'v.txt',
    }).expect(201);
    expect((await s.waitText(owner, vault, record, 'v.txt')).pages[0].text).toContain('betamarker');
    expect(await s.names(owner, 'alphamarker')).toEqual([]);
    const versions = await s.t.sql<{ id: string; number: number }>(
      `SELECT fv.id, fv.number FROM file_versions fv JOIN record_files rf ON rf.id = fv.file_id
       WHERE rf.record_id = $1 ORDER BY fv.number`,
      [record],
    );
    expect((await s.find(owner, 'betamarker')).data.map((h) => h.versionId)).toEqual([versions[1].id]);
    const texts = await s.t.sql(`SELECT id, extracted_at FROM file_texts ORDER BY id`);
    await s.t
      .post(
        owner,
        `/vault/vault-id/${vault}/records/record-id/${record}/record-files/v.txt/versions/version-id/${versions[0].id}/restore`,
      )
      .expect((res) => expect(res.status).toBeLessThan(300));
    expect(await s.names(owner, 'alphamarker')).toEqual(['v.txt']);
    expect(await s.names(owner, 'betamarker')).toEqual([]);
    expect(await s.t.sql(`SELECT id, extracted_at FROM file_texts ORDER BY id`)).toEqual(texts);
  });

  it('indexes a 2 MB document of unique words', async () => {
    const all = Array.from({ length: 210_000 }, (_, i) => `u${i.toString(36).padStart(4, '0')}word`);
    const text = await s.uploadAndWait(owner, vault, noteRecord, 'big.txt', Buffer.from(all.join(' ')));
    expect(text.status).toBe('extracted');
    expect(await s.names(owner, all[209_999])).toEqual(['big.txt']);
    expect(await s.names(owner, all[0])).toEqual(['big.txt']);
  });

  it('reindexes after a change of extractors: files without text and texts of an older extractor', async () => {
    await s.t.sql(`UPDATE file_texts SET extractor_version = 0`);
    await s.t.sql(`DELETE FROM file_texts WHERE record_file_id IN (SELECT id FROM record_files WHERE file_name = 'note.txt')`);
    expect(await s.names(owner, 'nothing else')).toEqual([]);
    // one page as an older extractor read it: replaced; the pages read as before are kept as
    // they are (pages of the files' current bytes: a replaced version's text is dropped)
    const CURRENT = `SELECT p.file_text_id, p.page FROM file_text_pages p JOIN file_texts ft ON ft.id = p.file_text_id
       JOIN record_files rf ON rf.id = ft.record_file_id AND rf.sha256 = ft.sha256`;
    const pagesNow = () =>
      s.t.sql<{ file_text_id: string; page: number; body: string; row: string }>(
        `SELECT file_text_id, page, body, xmin::text AS row FROM file_text_pages
         WHERE (file_text_id, page) IN (${CURRENT}) ORDER BY file_text_id, page`,
      );
    // (deleted and written again, so that the word list counts its words as it would have)
    const [older] = await s.t.sql<{
      file_text_id: string;
      page: number;
      tenant_id: string;
      body: string;
      ocr: boolean;
      language: string;
      tsv: string;
    }>(
      `DELETE FROM file_text_pages
       WHERE (file_text_id, page) = (${CURRENT} ORDER BY 1, 2 LIMIT 1)
       RETURNING file_text_id, page, tenant_id, body, ocr, language, tsv::text`,
    );
    await s.t.sql(
      `INSERT INTO file_text_pages (file_text_id, page, tenant_id, body, ocr, language, tsv)
       VALUES ($1, $2, $3, 'olderextractorword ' || $4, $5, $6, $7::tsvector)`,
      [older.file_text_id, older.page, older.tenant_id, older.body, older.ocr, older.language, older.tsv],
    );
    const before = await pagesNow();
    const isOlder = (p: { file_text_id: string; page: number }) => p.file_text_id === older.file_text_id && p.page === older.page;
    // the command (`node main.js search-reindex`) queues, reads with its progress bar and exits
    const command = spawnAppEntry('records-service', ['search-reindex'], { DATABASE_URL: s.t.db.url });
    // stopped if it has not ended in 150 s: its output shows in the failure below
    const timer = setTimeout(() => command.child.kill('SIGKILL'), 150_000);
    const [code] = await once(command.child, 'exit');
    clearTimeout(timer);
    expect({ code, output: command.output() }).toMatchObject({
      code: 0,
      output: expect.stringMatching(/reindex \[.*\] (\d+)\/\1 files/),
    });
    const p = await s.t.app.get(SearchReindex).progress();
    expect(p.done).toBe(p.total);
    expect(await s.t.sql(`SELECT DISTINCT extractor_version FROM file_texts`)).toEqual([
      { extractor_version: EXTRACTOR_VERSION },
    ]);
    expect(await s.names(owner, '"nothing else"')).toEqual(['note.txt']);
    expect(await s.names(owner, 'hausratversicherung')).toEqual(POLICY_FILES);

    const after = new Map((await pagesNow()).map((p) => [`${p.file_text_id}/${p.page}`, p]));
    const kept = before.filter((p) => !isOlder(p) && after.get(`${p.file_text_id}/${p.page}`)?.row === p.row);
    expect(kept.length).toBe(before.filter((p) => !isOlder(p)).length);
    const replaced = after.get(`${older.file_text_id}/${older.page}`);
    expect(replaced?.body).toBe(older.body);
    expect(replaced?.row).not.toBe(before.find(isOlder)?.row);
    // the word list counts what the pages hold: the older word left with its page
    expect(await s.t.sql(`SELECT word FROM search_words WHERE word = 'olderextractorword'`)).toEqual([]);
    const recount = await s.t.sql<{ n: string }>(
      `SELECT count(*) AS n FROM (
         SELECT p.tenant_id, w.word, count(*)::int AS pages FROM file_text_pages p CROSS JOIN LATERAL search_words_of(p.body) AS w(word)
         GROUP BY 1, 2) counted FULL JOIN search_words s USING (tenant_id, word)
       WHERE counted.pages IS DISTINCT FROM s.pages`,
    );
    expect(recount).toEqual([{ n: '0' }]);
  });

  it('shows the extracted text per page', async () => {
    const text = await s.waitText(owner, vault, policyRecord, 'policy.pdf');
    expect(text).toMatchObject({ status: 'extracted', reason: null, detectedType: 'application/pdf', language: 'simple' });
    expect(text.pages[0]).toMatchObject({ page: 1, ocr: false });
    expect(text.pages[0].text).toContain('Hausratversicherung');
  });

  it('never errs on query text, refuses an empty or oversized one, and pages with cursors', async () => {
    for (const q of ['"', '!!!', "'&|:*()", 'or', '-', '""', 'a & b | !c', '%_\\']) {
      const res = await s.t.http().get('/api/v1/search').query({ q }).set('Authorization', `Bearer ${owner.token}`);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
    }
    for (const q of ['', '   ', 'x'.repeat(10_000)]) {
      const res = await s.t.http().get('/api/v1/search').query({ q }).set('Authorization', `Bearer ${owner.token}`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
      expect(res.body.requestId ?? res.headers['x-request-id']).toBeTruthy();
    }
    await s.t
      .http()
      .get('/api/v1/search')
      .query({ q: 'flood', limit: '0' })
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(400);
    await s.t
      .http()
      .get('/api/v1/search')
      .query({ q: 'flood', cursor: 'bogus' })
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(400);
    await s.t.http().get('/api/v1/search').query({ q: 'flood' }).expect(401);
    const first = await s.find(owner, 'flood', { limit: '2' });
    expect(first.data).toHaveLength(2);
    const second = await s.find(owner, 'flood', { limit: '2', cursor: first.nextCursor ?? '' });
    const third = await s.find(owner, 'flood', { limit: '2', cursor: second.nextCursor ?? '' });
    const seen = [...first.data, ...second.data, ...third.data].map((h) => h.fileName);
    expect(seen.sort()).toEqual(['note.txt', ...POLICY_FILES].sort());
    expect(third.nextCursor).toBeNull();
    await s.t
      .http()
      .get('/api/v1/search')
      .query({ q: 'other', cursor: first.nextCursor })
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(400);
  });

  const recordBodyNamed = (name: string) => ({
    name,
    description: 'Blue cover',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
    uniqueReference: '20260101120000',
    storageLocation: 'Desk drawer',
    editable: true,
    recordDetails: { number: 'X123', country: 'CA' },
  });
});

async function waitUntil(cond: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}
