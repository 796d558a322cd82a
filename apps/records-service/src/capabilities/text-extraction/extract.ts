import { officeText } from './office';
import { Ocr } from './ocr';
import { pdfText } from './pdf';
import { looksLikeText, sections } from './plain-text';
import { type ExtractedPage, type ExtractionRequest, type ExtractionResult, UnreadableFile } from './extraction.types';

type Sniffed = { mime: string; ext: string } | undefined;

/** file-type ships ES modules only: Node (20.19 and later) requires them without top-level await. */
const fileType = () => require('file-type') as { fileTypeFromBuffer(b: Uint8Array): Promise<Sniffed> };

const ODF = new Set(['odt', 'ods', 'odp']);
const IMAGES = new Set(['png', 'jpg', 'tif', 'bmp', 'webp', 'gif']);
const ENCRYPTED_OFFICE = Buffer.from('EncryptedPackage', 'utf16le');

/** Per language: a Tesseract worker of this process, made on first use. */
const ocrs = new Map<string, Ocr>();
const ocrFor = (language: string) => {
  if (!ocrs.has(language)) ocrs.set(language, new Ocr(language));
  return ocrs.get(language) as Ocr;
};

/** The media type of the bytes: file-type's magic numbers, else UTF-8 text. */
export async function sniff(bytes: Uint8Array): Promise<{ mime: string; ext: string } | null> {
  const found = await fileType().fileTypeFromBuffer(bytes);
  if (found) return found;
  return looksLikeText(bytes) ? { mime: 'text/plain', ext: 'txt' } : null;
}

/** The text of one file, page by page or section by section, or why it has none. */
export async function extract(req: ExtractionRequest): Promise<ExtractionResult> {
  const { bytes, limits } = req;
  let type: { mime: string; ext: string } | null = null;
  try {
    if (bytes.byteLength > limits.maxBytes) throw new UnreadableFile('too_large', `${bytes.byteLength} bytes`);
    type = await sniff(bytes);
    if (!type) throw new UnreadableFile('unsupported_type');
    const { pages, truncated } = await byType(type, req);
    if (pages.length === 0) throw new UnreadableFile('no_text');
    return { ok: true, detectedType: type.mime, pages, truncated };
  } catch (e) {
    if (e instanceof UnreadableFile) return { ok: false, detectedType: type?.mime ?? null, reason: e.reason, detail: e.message };
    return { ok: false, detectedType: type?.mime ?? null, reason: 'corrupt', detail: String((e as Error).message ?? e) };
  }
}

async function byType(
  type: { mime: string; ext: string },
  { bytes, limits, ocrLanguage }: ExtractionRequest,
): Promise<{ pages: ExtractedPage[]; truncated: boolean }> {
  if (type.ext === 'pdf') return pdfText(bytes, limits, limits.ocr ? ocrFor(ocrLanguage) : null);
  if (type.ext === 'docx') return officeText(bytes, 'docx', limits);
  if (ODF.has(type.ext)) return officeText(bytes, 'odf', limits);
  if (type.mime === 'text/plain') return sections(new TextDecoder('utf-8').decode(bytes), limits);
  if (type.ext === 'cfb') {
    const encrypted = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(ENCRYPTED_OFFICE);
    throw new UnreadableFile(encrypted ? 'encrypted' : 'unsupported_type', type.mime);
  }
  if (IMAGES.has(type.ext) && limits.ocr) {
    const text = await ocrFor(ocrLanguage).read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return {
      pages: text.trim() ? [{ page: 1, text: text.trim().slice(0, limits.maxPageChars), ocr: true }] : [],
      truncated: false,
    };
  }
  throw new UnreadableFile('unsupported_type', type.mime);
}

/** Stops the OCR workers of this process. */
export async function closeOcr(): Promise<void> {
  await Promise.all([...ocrs.values()].map((o) => o.close()));
  ocrs.clear();
}
