import type { ExtractedPage, ExtractionLimits } from './extraction.types';

/** Characters per section of a plain text (a tsvector holds at most 1 MiB). */
export const SECTION_CHARS = 32_000;

/** Text safe to store: no NUL (PostgreSQL text refuses it) and no other C0 controls except tab and newlines. */
// eslint-disable-next-line no-control-regex
export const clean = (s: string) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ');

/** Whether the bytes read as UTF-8 text (no invalid sequences, few control characters). */
export function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(sample.length < bytes.length ? trimPartial(sample) : sample);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  const controls = text.match(/[\u0000-\u0008\u000e-\u001f]/g)?.length ?? 0;
  return controls <= text.length / 100;
}

/** A sample cut inside a multi-byte character would not decode: drop the partial character. */
function trimPartial(b: Uint8Array): Uint8Array {
  let end = b.length;
  while (end > 0 && end > b.length - 4 && (b[end - 1] & 0xc0) === 0x80) end--;
  if (end > 0 && b[end - 1] >= 0xc0) end--;
  return b.subarray(0, end);
}

/**
 * A long text split into sections of about SECTION_CHARS at line or word boundaries,
 * numbered from 1, at most `maxPages`.
 */
export function sections(text: string, limits: ExtractionLimits): { pages: ExtractedPage[]; truncated: boolean } {
  const pages: ExtractedPage[] = [];
  const size = Math.min(SECTION_CHARS, limits.maxPageChars);
  let at = 0;
  const all = clean(text);
  while (at < all.length && pages.length < limits.maxPages) {
    let end = Math.min(all.length, at + size);
    if (end < all.length) {
      const cut = Math.max(all.lastIndexOf('\n', end), all.lastIndexOf(' ', end));
      if (cut > at + size / 2) end = cut + 1;
    }
    const body = all.slice(at, end).trim();
    if (body) pages.push({ page: pages.length + 1, text: body, ocr: false });
    at = end;
  }
  return { pages, truncated: at < all.length };
}
