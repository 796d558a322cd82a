import JSZip from 'jszip';
import mammoth from 'mammoth';
import { sections } from './plain-text';
import { type ExtractedPage, type ExtractionLimits, UnreadableFile } from './extraction.types';
import { assertZipBounded } from './zip-guard';

/** Entities of the ODF XML the text may hold. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text of ODF content.xml: paragraphs and headings become lines, tabs and spaces are kept. */
export function odfText(xml: string): string {
  return xml
    .replace(/<text:(?:tab|line-break)\/>/g, ' ')
    .replace(/<text:s(?: text:c="(\d+)")?\/>/g, (_m, n: string | undefined) => ' '.repeat(Math.min(Number(n ?? 1), 100)))
    .replace(/<\/text:(?:p|h)>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, e: string) => {
      if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
      return ENTITIES[e] ?? m;
    });
}

/** Text of a DOCX (mammoth) or an ODF text/spreadsheet/presentation (content.xml), in sections. */
export async function officeText(
  bytes: Uint8Array,
  kind: 'docx' | 'odf',
  limits: ExtractionLimits,
): Promise<{ pages: ExtractedPage[]; truncated: boolean }> {
  assertZipBounded(bytes, limits.maxInflatedBytes);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text: string;
  try {
    if (kind === 'docx') {
      text = (await mammoth.extractRawText({ buffer })).value;
    } else {
      const zip = await JSZip.loadAsync(buffer);
      const content = zip.file('content.xml');
      if (!content) throw new UnreadableFile('corrupt', 'no content.xml');
      text = odfText(await content.async('string'));
    }
  } catch (e) {
    if (e instanceof UnreadableFile) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw new UnreadableFile(/encrypt/i.test(message) ? 'encrypted' : 'corrupt', message.slice(0, 200));
  }
  return sections(text, limits);
}
