import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExtractorPool } from '../../src/capabilities/text-extraction/extractor-pool';
import type { ExtractionLimits, ExtractionResult } from '../../src/capabilities/text-extraction/extraction.types';
import { EXTRACTOR_ENV, fixture, FIXTURES } from './search-support';

/** Lower-case words of a text, accents folded as tesseract and pdf.js may differ on them. */
const words = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);

/** Share of the oracle's words (with repeats) found in `text`. */
function recall(oracle: string, text: string): number {
  const have = new Map<string, number>();
  for (const w of words(text)) have.set(w, (have.get(w) ?? 0) + 1);
  const want = words(oracle);
  let hit = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      hit++;
      have.set(w, n - 1);
    }
  }
  return hit / want.length;
}

const LIMITS: ExtractionLimits = {
  maxBytes: 50 * 1024 * 1024,
  maxPages: 100,
  maxPageChars: 100_000,
  maxInflatedBytes: 200 * 1024 * 1024,
  ocr: true,
  ocrMinChars: 20,
};
const pool = (o: Partial<ConstructorParameters<typeof ExtractorPool>[0]> = {}) =>
  new ExtractorPool({
    size: 1,
    script: EXTRACTOR_ENV.SEARCH_EXTRACTOR_SCRIPT,
    execArgv: EXTRACTOR_ENV.SEARCH_EXTRACTOR_EXEC_ARGV.split(' '),
    heapMb: 256,
    maxRssMb: 1024,
    timeoutMs: 60_000,
    recycleAfter: 100,
    recycleAboveRssMb: 1024,
    ...o,
  });
const text = (r: ExtractionResult) => (r.ok ? r.pages.map((p) => p.text).join('\n') : `failed: ${r.reason}`);

describe('text extraction against tools we did not write (poppler-utils, tesseract-ocr)', () => {
  jest.setTimeout(120_000);
  const extractors = pool();
  let tmp: string;
  beforeAll(() => (tmp = mkdtempSync(join(tmpdir(), 'search-oracle-'))));
  afterAll(async () => {
    await extractors.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('reads at least 98% of the words pdftotext reads from a PDF text layer, page by page', async () => {
    const file = join(FIXTURES, 'report.pdf');
    const result = await extractors.run(fixture('report.pdf'), 'eng', LIMITS);
    if (!result.ok) throw new Error(text(result));
    expect(result.pages.map((p) => [p.page, p.ocr])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
    for (const p of result.pages) {
      const oracle = execFileSync('pdftotext', ['-f', `${p.page}`, '-l', `${p.page}`, file, '-'], { encoding: 'utf8' });
      expect(recall(oracle, p.text)).toBeGreaterThanOrEqual(0.98);
    }
  });

  it('OCRs a scanned page within 2 points of the tesseract CLI, with no network at all', async () => {
    const truth = execFileSync(
      'pdftotext',
      ['-r', '150', '-x', '0', '-y', '60', '-W', '1240', '-H', '420', join(FIXTURES, 'policy.pdf'), '-'],
      { encoding: 'utf8' },
    );
    execFileSync('pdfimages', ['-j', join(FIXTURES, 'scanned.pdf'), join(tmp, 'scan')]);
    const cli = execFileSync('tesseract', [join(tmp, 'scan-000.jpg'), '-', '-l', 'eng'], { encoding: 'utf8', stdio: 'pipe' });
    const ours = await offline(fixture('scanned.pdf'));
    if (!ours.ok) throw new Error(text(ours));
    expect(ours.pages[0].ocr).toBe(true);
    expect(recall(truth, text(ours))).toBeGreaterThanOrEqual(recall(truth, cli) - 0.02);
  });

  it('marks encrypted, corrupt, zip-bomb and unknown files unsearchable with a reason, and goes on', async () => {
    const pdf = fixture('policy.pdf');
    const cases: [string, Buffer, string][] = [
      ['encrypted PDF', fixture('encrypted.pdf'), 'encrypted'],
      ['truncated PDF', pdf.subarray(0, 900), 'corrupt'],
      ['PDF with garbage body', Buffer.concat([pdf.subarray(0, 20), Buffer.alloc(4000, 0x41)]), 'corrupt'],
      ['zip bomb DOCX', fixture('bomb.docx'), 'zip_bomb'],
      ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)), 'unsupported_type'],
      ['empty file', Buffer.alloc(0), 'no_text'],
    ];
    for (const [what, bytes, reason] of cases) {
      const r = await extractors.run(bytes, 'eng', LIMITS);
      expect({ what, reason: r.ok ? 'ok' : r.reason }).toEqual({ what, reason });
    }
    expect(text(await extractors.run(fixture('policy.docx'), 'eng', LIMITS))).toContain('Hausratversicherung');
  });

  it('kills an extractor past its time or memory and reads the next file with a fresh one', async () => {
    // OCR of the scanned page takes about 1.2 s on a quiet 2-vCPU machine (longer under load)
    const slow = pool({ timeoutMs: 500 });
    // an extractor that has read a text file, plus 24 MiB: too little for OCR (its engine and language data)
    const idle = extractors.rss();
    expect(idle).toBeGreaterThan(20);
    const small = pool({ maxRssMb: Math.ceil(idle) + 24 });
    try {
      expect(await slow.run(fixture('scanned.pdf'), 'eng', LIMITS)).toMatchObject({ ok: false, reason: 'timeout' });
      expect(text(await slow.run(fixture('policy.txt'), 'eng', LIMITS))).toContain('flood');
      expect(text(await small.run(fixture('policy.txt'), 'eng', LIMITS))).toContain('flood');
      expect(await small.run(fixture('scanned.pdf'), 'eng', LIMITS)).toMatchObject({ ok: false, reason: 'out_of_memory' });
      expect(text(await small.run(fixture('policy.docx'), 'eng', LIMITS))).toContain('flood');
    } finally {
      await slow.close();
      await small.close();
    }
  });

  it('keeps an extractor for the next file, and replaces one whose memory grew past the bound or that read its share', async () => {
    const kept = pool({ recycleAfter: 1000, recycleAboveRssMb: 1024 });
    const grown = pool({ recycleAfter: 1000, recycleAboveRssMb: 1 });
    const counted = pool({ recycleAfter: 2, recycleAboveRssMb: 1024 });
    const pidsOver = async (p: ExtractorPool, files: number) => {
      const pids: number[] = [];
      for (let i = 0; i < files; i++) {
        expect(text(await p.run(fixture('policy.txt'), 'eng', LIMITS))).toContain('flood');
        pids.push(...p.pids());
      }
      return pids;
    };
    try {
      expect(new Set(await pidsOver(kept, 3)).size).toBe(1);
      expect(new Set(await pidsOver(grown, 3)).size).toBe(3);
      expect(new Set(await pidsOver(counted, 4)).size).toBe(2);
    } finally {
      await Promise.all([kept.close(), grown.close(), counted.close()]);
    }
  });

  it('splits a 2 MB text of unique words into sections, every word kept', async () => {
    const all = Array.from({ length: 210_000 }, (_, i) => `u${i.toString(36).padStart(4, '0')}word`);
    const bytes = Buffer.from(all.join(' '));
    expect(bytes.length).toBeGreaterThan(2_000_000);
    const r = await extractors.run(bytes, 'eng', LIMITS);
    if (!r.ok) throw new Error(text(r));
    expect(r.pages.length).toBeGreaterThan(60);
    expect(r.pages.every((p) => p.text.length <= 32_000)).toBe(true);
    expect(words(text(r))).toEqual(all);
  });
});

/**
 * One extraction by an extractor process in a network namespace of its own (`unshare -n`:
 * no interface but a downed loopback), so any download of OCR data would fail.
 */
function offline(bytes: Buffer): Promise<ExtractionResult> {
  const child = spawn(
    'unshare',
    [
      '-n',
      process.execPath,
      ...EXTRACTOR_ENV.SEARCH_EXTRACTOR_EXEC_ARGV.split(' '),
      EXTRACTOR_ENV.SEARCH_EXTRACTOR_SCRIPT,
      'text-extractor',
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' },
  );
  return new Promise((resolve, reject) => {
    child.on('message', (m: { result?: ExtractionResult }) => {
      if (!m.result) return;
      resolve(m.result);
      child.disconnect();
    });
    child.on('exit', (code) => reject(new Error(`offline extractor exited with ${code}`)));
    child.send({ id: 1, bytes, ocrLanguage: 'eng', limits: LIMITS });
  });
}
