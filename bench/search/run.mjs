#!/usr/bin/env node
/**
 * Content search benchmark (docs/benchmarks.md, Content search).
 *
 * 1. throughput: BENCH_FILES uploads of a 3-page text PDF (apps/records-service/test/search/
 *    fixtures/report.pdf) sent at once; pages extracted and indexed per second, from the first
 *    queued file to the last extracted, against `pdftotext` (poppler-utils) on the same file as
 *    many times, as many processes at a time as there are extractors.
 * 2. lag: uploads of that PDF at BENCH_UPLOAD_RATE/s for BENCH_LAG_SECONDS, each sent at its
 *    scheduled time; lag = the file row's commit → its text indexed (file_texts.extracted_at),
 *    p50/p99/max. RSS of records-service and of its extractor processes sampled meanwhile.
 * 3. queries: BENCH_PAGES pages generated directly in SQL (random words of a 20,000-word
 *    vocabulary, 120 per page) in the caller's vault, then GET /search of one or two random
 *    vocabulary words at BENCH_QUERY_RATE/s for BENCH_QUERY_SECONDS (open loop, latency from
 *    each scheduled send), straight to records-service's port; p50/p99/max; BENCH_QUERY_ROUNDS rounds,
 *    each with words of its own (the first also pays each pool connection's first plan).
 *
 * Self-contained: builds the apps (nx cache), starts them with scripts/platform.cjs on
 * throw-away databases of DATABASE_URL's server and NATS_URL, drops everything at the end.
 * Variables: BENCH_FILES (60), BENCH_UPLOAD_RATE (10), BENCH_LAG_SECONDS (30), BENCH_PAGES
 * (100000), BENCH_QUERY_RATE (50), BENCH_QUERY_SECONDS (20), BENCH_QUERY_ROUNDS (2), BENCH_EXTRACTORS (the service's default:
 * cores - 1, 1 to 4; pdftotext runs with as many processes at a time),
 * BENCH_PHASES (throughput,lag,queries: the phases to run), BENCH_SKIP_BUILD=1, BENCH_CPU_PROF=<dir>
 * (records-service and its extractor processes with --cpu-prof, profiles written at exit). Writes
 * .data/bench/search.json.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { FormData, request } from 'undici';
import * as bench from '../bench-platform.mjs';

const { benchPlans, buildApps, cpuProfArgs, PG_SERVER, platform, ROOT, rssMiBOf, runBench, signIn, startBenchPlatform } = bench;
const require = createRequire(import.meta.url);
const pg = require('pg');

const FILES = Number(process.env.BENCH_FILES ?? 60);
const UPLOAD_RATE = Number(process.env.BENCH_UPLOAD_RATE ?? 10);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 30);
const PAGES = Number(process.env.BENCH_PAGES ?? 100_000);
const QUERY_RATE = Number(process.env.BENCH_QUERY_RATE ?? 50);
const QUERY_SECONDS = Number(process.env.BENCH_QUERY_SECONDS ?? 20);
const QUERY_ROUNDS = Number(process.env.BENCH_QUERY_ROUNDS ?? 2);
// the service's default: one extractor per core but one, at most 4 (SearchEnv.SEARCH_EXTRACTORS)
const EXTRACTORS = process.env.BENCH_EXTRACTORS ?? String(Math.min(4, Math.max(1, availableParallelism() - 1)));
const PDF = path.join(ROOT, 'apps/records-service/test/search/fixtures/report.pdf');
const PDF_PAGES = 3;
const VOCABULARY = 20_000;
const PHASES = (process.env.BENCH_PHASES ?? 'throughput,lag,queries').split(',');
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** Node options that profile a process under BENCH_CPU_PROF (none without it). */
const CPU_PROF_ARGS = cpuProfArgs(CPU_PROF);

const log = (msg) => console.log(`[bench:search] ${msg}`);
const cleanups = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function api(base, token, method, url, body) {
  const res = await request(`${base}/api/v1${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
    },
    body: body instanceof FormData ? body : body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

function uploader(base, token, vault, record) {
  const bytes = readFileSync(PDF);
  return async (name) => {
    const form = new FormData();
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), name);
    const q = new URLSearchParams({ fileName: name, correlationId: '260101120000', fileType: 'document' });
    await api(base, token, 'POST', `/vault/vault-id/${vault}/records/record-id/${record}/record-files?${q}`, form);
  };
}

async function waitExtracted(db, n, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM file_texts WHERE status <> 'pending'`);
    if (rows[0].n >= n) return;
    if (Date.now() > end) throw new Error(`only ${rows[0].n} of ${n} files extracted`);
    await sleep(100);
  }
}

/**
 * Phase 1: pages/s of the pipeline against pdftotext on the same file. The files are uploaded
 * first (uploads are not what is measured), then all queued again at once, twice: first with
 * their pages deleted (every page read and written anew, as a first extraction does), then
 * with their pages in place (a reindex whose extractor reads the same text: the pages are
 * kept). Each rate runs from the first file indexed to the last (`rate`).
 */
async function throughput(db, upload) {
  log(`throughput: ${FILES} uploads of a ${PDF_PAGES}-page PDF, then all read again, twice`);
  for (let i = 0; i < FILES; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, FILES - i) }, (_, k) => upload(`t${i + k}.pdf`)));
  }
  await waitExtracted(db, FILES, 600_000);
  await db.query(`DELETE FROM file_text_pages`);
  const written = await rate(db);
  const kept = await rate(db);
  // pdftotext with the same parallelism: as many processes at a time as there are extractors
  const run = promisify(execFile);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Number(EXTRACTORS) }, async () => {
      while (next++ < FILES) await run('pdftotext', [PDF, '/dev/null']);
    }),
  );
  const popplerPagesPerSecond = (FILES * PDF_PAGES) / ((performance.now() - t0) / 1000);
  return {
    files: FILES,
    parallelism: Number(EXTRACTORS),
    pages: written.pages,
    oursPagesPerSecond: written.pagesPerSecond,
    keptPagesPerSecond: kept.pagesPerSecond,
    popplerPagesPerSecond,
    ratio: written.pagesPerSecond / popplerPagesPerSecond,
    keptRatio: kept.pagesPerSecond / popplerPagesPerSecond,
  };
}

/**
 * Every file queued again at once; pages/s from the first file indexed to the last: the
 * files after the first over that time. From the queueing it would also count the wait
 * until the idle lanes next poll the queue (SEARCH_POLL_MS), which is a latency (the lag
 * phase's), not a rate.
 */
async function rate(db) {
  const { rows: queued } = await db.query(
    `UPDATE file_texts SET status = 'pending', attempts = 0, lease_until = NULL RETURNING clock_timestamp() AS at`,
  );
  await waitExtracted(db, FILES, 600_000);
  const { rows } = await db.query(
    `SELECT extract(epoch FROM max(extracted_at) - min(extracted_at)) AS s,
       (sum(pages) - (array_agg(pages ORDER BY extracted_at))[1])::int AS pages,
       extract(epoch FROM min(extracted_at) - $1::timestamptz) AS "firstAfter"
     FROM file_texts`,
    [queued[0].at],
  );
  const pagesPerSecond = rows[0].pages / Number(rows[0].s);
  log(
    `throughput: ${round(pagesPerSecond)} pages/s, the first file indexed ${(Number(rows[0].firstAfter) * 1000).toFixed(0)} ms after the queueing`,
  );
  return { pages: rows[0].pages, pagesPerSecond };
}

/** Phase 2: index lag at a steady upload rate, with RSS samples. */
async function lag(db, upload, pids) {
  const n = UPLOAD_RATE * LAG_SECONDS;
  log(`lag: ${n} uploads at ${UPLOAD_RATE}/s`);
  const rss = { service: 0, extractors: 0 };
  const sampler = setInterval(() => {
    try {
      rss.service = Math.max(rss.service, rssMiBOf(pids.service));
      const kids = spawnSync('pgrep', ['-P', String(pids.service)])
        .stdout.toString()
        .split('\n')
        .filter(Boolean);
      rss.extractors = Math.max(
        rss.extractors,
        kids.reduce((sum, pid) => sum + rssMiBOf(Number(pid)), 0),
      );
    } catch {
      /* a process ended between the listing and the read */
    }
  }, 200);
  const start = performance.now();
  const sends = [];
  for (let i = 0; i < n; i++) {
    const at = start + (i * 1000) / UPLOAD_RATE;
    await sleep(Math.max(0, at - performance.now()));
    sends.push(
      upload(`lag${i}.pdf`).then(
        () => true,
        () => false,
      ),
    );
  }
  const refused = (await Promise.all(sends)).filter((ok) => !ok).length;
  await waitExtracted(db, FILES + n - refused, 600_000);
  clearInterval(sampler);
  const { rows } = await db.query(
    `SELECT extract(epoch FROM ft.extracted_at - rf.created_at) * 1000 AS ms FROM file_texts ft
     JOIN record_files rf ON rf.id = ft.record_file_id WHERE rf.file_name LIKE 'lag%'`,
  );
  const ms = rows.map((r) => Number(r.ms));
  const { rows: span } = await db.query(
    `SELECT extract(epoch FROM max(created_at) - min(created_at)) AS s FROM record_files WHERE file_name LIKE 'lag%'`,
  );
  const committedPerSecond = (n - refused) / Number(span[0].s);
  return {
    uploads: n,
    refused,
    rate: UPLOAD_RATE,
    committedPerSecond,
    p50: pct(ms, 50),
    p99: pct(ms, 99),
    max: Math.max(...ms),
    rssMiB: rss,
  };
}

/** Phase 3: BENCH_PAGES pages written in SQL, then queries at a fixed rate. */
async function queries(db, base, signInAgain, record) {
  log(`queries: generating ${PAGES} pages in SQL`);
  const t0 = performance.now();
  const files = Math.ceil(PAGES / 100);
  // the vocabulary: word i is 'w' || md5(i); pages draw their words from it directly (a join
  // to a table of words per page took over 20 minutes for 100,000 pages)
  await db.query(`CREATE TEMP TABLE vocab AS SELECT i, 'w' || md5(i::text) AS w FROM generate_series(0, ${VOCABULARY - 1}) i`);
  await db.query(
    `INSERT INTO record_files (record_id, tenant_id, file_name, correlation_id, file_type, media_type, storage_key, size, sha256, uploader, uploader_open_id)
     SELECT $1, r.tenant_id, 'gen' || g || '.pdf', '260101120000', 'document', 'application/pdf', 'gen-' || g, 1, md5(g::text), 'bench', 'bench'
     FROM generate_series(1, ${files}) g, records r WHERE r.id = $1`,
    [record],
  );
  await db.query(
    `INSERT INTO file_texts (record_file_id, sha256, tenant_id, status, extractor_version, pages, extracted_at)
     SELECT id, sha256, tenant_id, 'extracted', 1, 100, now() FROM record_files WHERE file_name LIKE 'gen%'`,
  );
  await db.query(
    `INSERT INTO file_text_pages (file_text_id, page, tenant_id, body, language, tsv)
     SELECT ft.id, p, ft.tenant_id, b.body, 'simple', setweight(to_tsvector('simple', search_fold(b.body)), 'D')
     FROM file_texts ft JOIN record_files rf ON rf.id = ft.record_file_id AND rf.file_name LIKE 'gen%'
     CROSS JOIN generate_series(1, 100) p
     CROSS JOIN LATERAL (SELECT string_agg('w' || md5(floor(random() * ${VOCABULARY})::int::text), ' ') AS body
       FROM generate_series(1, 120 + p * 0 + length(ft.id::text) * 0)) b`,
  );
  // as autovacuum leaves them after a bulk load (visibility map, statistics of every table)
  for (const table of ['file_text_pages', 'file_texts', 'search_words', 'record_files'])
    await db.query(`VACUUM ANALYZE ${table}`);
  const generated = (performance.now() - t0) / 1000;
  const { rows: words } = await db.query(
    `SELECT w FROM vocab ORDER BY random() LIMIT ${QUERY_RATE * QUERY_SECONDS * QUERY_ROUNDS}`,
  );
  // a fresh token: the one of the start may expire while the pages are generated
  const token = await signInAgain();
  // one at a time first: the cost of a query without a queue in front of it
  const alone = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await api(base, token, 'GET', `/search?q=${encodeURIComponent(words[(i * 13) % words.length].w)}&limit=20`);
    alone.push(performance.now() - t);
  }
  const n = QUERY_RATE * QUERY_SECONDS;
  const rounds = [];
  for (let r = 0; r < QUERY_ROUNDS; r++) {
    log(`queries: round ${r + 1} of ${QUERY_ROUNDS}, ${n} at ${QUERY_RATE}/s`);
    const latencies = [];
    let errors = 0;
    const start = performance.now();
    const sends = [];
    for (let i = 0; i < n; i++) {
      const at = start + (i * 1000) / QUERY_RATE;
      await sleep(Math.max(0, at - performance.now()));
      // each round its own words: a round does not find the pages of the one before in cache
      const word = (k) => words[(r * n + k) % words.length].w;
      const q = i % 2 ? word(i) : `${word(i)} ${word((i * 7) % n)}`;
      sends.push(
        api(base, token, 'GET', `/search?q=${encodeURIComponent(q)}&limit=20`)
          .then(() => latencies.push(performance.now() - at))
          .catch(() => errors++),
      );
    }
    await Promise.all(sends);
    rounds.push({ errors, p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies) });
  }
  const last = rounds[rounds.length - 1];
  return {
    pages: PAGES,
    generatedSeconds: generated,
    queries: n,
    rate: QUERY_RATE,
    aloneP50: pct(alone, 50),
    aloneP99: pct(alone, 99),
    rounds,
    errors: rounds.reduce((a, x) => a + x.errors, 0),
    p50: last.p50,
    p99: last.p99,
    max: last.max,
  };
}

async function main() {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-search-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  buildApps(log);
  const p = await startBenchPlatform({
    name: 'search',
    work,
    plans: benchPlans((f) => Object.assign(f, { 'vault.maxUploadMBs': '100', 'vault.maxVaultGBs': '100' })),
    env: {
      ENCRYPTION_KEYRING: `bench:${randomBytes(32).toString('base64')}`,
      // a namespace of its own: durable consumers on a shared NATS are never shared with another run
      EVENTS_NAMESPACE: `bench_search_${process.pid}`,
      SEARCH_EXTRACTORS: EXTRACTORS,
      SEARCH_POLL_MS: '500',
      // the extractor processes profiled too (they take their execArgv from this variable)
      ...(CPU_PROF ? { SEARCH_EXTRACTOR_EXEC_ARGV: CPU_PROF_ARGS.join(' ') } : {}),
    },
    ...(CPU_PROF ? { nodeArgs: { 'records-service': CPU_PROF_ARGS } } : {}),
    cleanups,
    log,
  });
  const token = await signIn(p);
  const base = `http://127.0.0.1:${p.ports['records-service']}`;
  const { id: vault } = await api(base, token, 'POST', '/vault', { name: 'Bench' });
  const record = await api(base, token, 'POST', `/vault/vault-id/${vault}/records`, {
    name: 'Bench papers',
    description: 'Bench',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
  });
  const db = new pg.Client({ connectionString: platform.databaseUrl(PG_SERVER, p.databases['records-service']) });
  await db.connect();
  cleanups.unshift(() => db.end());
  const upload = uploader(base, token, vault, record.id);
  const pids = { service: p.children.get('records-service').pid };
  const result = {
    measuredAt: new Date().toISOString(),
    commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).stdout.toString().trim(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() },
    uptimeBefore: spawnSync('uptime').stdout.toString().trim(),
    extractors: Number(EXTRACTORS),
    throughput: PHASES.includes('throughput') ? await throughput(db, upload) : null,
    lag: PHASES.includes('lag') ? await lag(db, upload, pids) : null,
    queries: PHASES.includes('queries') ? await queries(db, base, () => signIn(p), record.id) : null,
  };
  result.uptimeAfter = spawnSync('uptime').stdout.toString().trim();
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  writeFileSync(path.join(ROOT, '.data/bench/search.json'), JSON.stringify(result, null, 2));
  const t = result.throughput;
  const l = result.lag;
  const q = result.queries;
  const rows = [
    ...(t
      ? [
          `| Extraction, pages/s (records-service, ${EXTRACTORS} extractor processes), every page written | ${round(t.oursPagesPerSecond)} | |`,
          `| Extraction, pages/s, a reindex reading the same text (pages kept) | ${round(t.keptPagesPerSecond)} | |`,
          `| pdftotext, pages/s (same file, ${EXTRACTORS} processes at a time) | ${round(t.popplerPagesPerSecond)} | |`,
          `| Ratio, every page written / pages kept | ${round(t.ratio, 2)} / ${round(t.keptRatio, 2)} | at least 0.5 |`,
        ]
      : []),
    ...(l
      ? [
          `| Index lag p50 at ${l.rate} uploads/s sent (${round(l.committedPerSecond)}/s committed, ${l.refused} refused) | ${round(l.p50)} ms | |`,
          `| Index lag p99 | ${round(l.p99)} ms | at most 5,000 ms |`,
          `| Index lag max | ${round(l.max)} ms | |`,
          `| RSS records-service / extractors (max) | ${round(l.rssMiB.service)} / ${round(l.rssMiB.extractors)} MiB | stated |`,
        ]
      : []),
    ...(q
      ? [
          `| Query p50 / p99 one at a time over ${q.pages} pages | ${round(q.aloneP50)} / ${round(q.aloneP99)} ms | |`,
          ...q.rounds.map(
            (x, i) =>
              `| Query p50 / p99 / max at ${q.rate} q/s over ${q.pages} pages, round ${i + 1} | ${round(x.p50)} / ${round(x.p99)} / ${round(x.max)} ms, ${x.errors} errors | p99 at most 50 ms |`,
          ),
        ]
      : []),
  ];
  console.log(`
| Measure | Result | Goal |
|---|---|---|
${rows.join('\n')}

uptime before: ${result.uptimeBefore}
uptime after:  ${result.uptimeAfter}
`);
}

runBench(main, { cleanups, log, settleMs: 500 });
