import { clean } from './plain-text';
import { type ExtractedPage, type ExtractionLimits, UnreadableFile } from './extraction.types';
import type { Ocr, RawImage } from './ocr';

/* The parts of pdf.js used here. */
interface PdfJs {
  getDocument(src: object): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
  OPS: Record<string, number>;
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  destroy(): Promise<void>;
}
interface PdfPage {
  getTextContent(): Promise<{ items: { str?: string; hasEOL?: boolean }[] }>;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  objs: { get(name: string, cb?: (v: unknown) => void): unknown };
  cleanup(): void;
}

let pdfjs: PdfJs | undefined;

/**
 * pdf.js ships ES modules only: Node (20.19 and later) requires them without top-level await.
 * The modern build, not `legacy/`: the legacy build's core-js polyfills replace
 * Array.prototype.push and friends in the whole process and read text at less than half the
 * speed (measured: 38 against 95 pages/s on the benchmark's PDF). The one thing it needs that
 * Node 20 lacks is Promise.withResolvers; its import-time advice to use the legacy build in
 * Node is not printed. This runs in the extractor process only.
 */
function load(): PdfJs {
  if (pdfjs) return pdfjs;
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= function withResolvers<T>() {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((res, rej) => ([resolve, reject] = [res, rej]));
    return { promise, resolve, reject };
  };
  const log = console.log;
  console.log = () => undefined;
  try {
    pdfjs = require('pdfjs-dist/build/pdf.mjs') as PdfJs;
  } finally {
    console.log = log;
  }
  return pdfjs;
}

/** Text of each page of a PDF: its text layer, or OCR of its images when the layer has too little. */
export async function pdfText(
  bytes: Uint8Array,
  limits: ExtractionLimits,
  ocr: Ocr | null,
): Promise<{ pages: ExtractedPage[]; truncated: boolean }> {
  const lib = load();
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch (e) {
    const name = (e as { name?: string }).name;
    throw new UnreadableFile(name === 'PasswordException' ? 'encrypted' : 'corrupt', (e as Error).message?.slice(0, 200));
  }
  try {
    const count = Math.min(doc.numPages, limits.maxPages);
    const pages: ExtractedPage[] = [];
    for (let n = 1; n <= count; n++) {
      const page = await doc.getPage(n);
      let text = layerText(await page.getTextContent());
      let usedOcr = false;
      if (ocr && letters(text) < limits.ocrMinChars) {
        const read = await ocrPage(lib, page, ocr);
        if (letters(read) > letters(text)) [text, usedOcr] = [read, true];
      }
      page.cleanup();
      text = clean(text).slice(0, limits.maxPageChars).trim();
      if (text) pages.push({ page: n, text, ocr: usedOcr });
    }
    return { pages, truncated: doc.numPages > count };
  } finally {
    await doc.destroy();
  }
}

const letters = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '').length;

function layerText(content: { items: { str?: string; hasEOL?: boolean }[] }): string {
  let out = '';
  for (const item of content.items) {
    if (typeof item.str !== 'string') continue;
    out += item.str + (item.hasEOL ? '\n' : '');
  }
  return out;
}

/** OCR of the images a page paints (a scanned page is one image), in painting order. */
async function ocrPage(lib: PdfJs, page: PdfPage, ocr: Ocr): Promise<string> {
  const ops = await page.getOperatorList();
  const texts: string[] = [];
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] !== lib.OPS.paintImageXObject) continue;
    const image = await objectOf(page, String(ops.argsArray[i][0]));
    if (image && image.width >= 50 && image.height >= 20) texts.push(await ocr.read(image));
  }
  return texts.join('\n');
}

function objectOf(page: PdfPage, name: string): Promise<RawImage | null> {
  return new Promise((resolve) => {
    try {
      page.objs.get(name, (v) => resolve(toRaw(v)));
    } catch {
      resolve(null);
    }
  });
}

function toRaw(v: unknown): RawImage | null {
  const img = v as { width?: number; height?: number; data?: Uint8Array | Uint8ClampedArray; kind?: number } | null;
  if (!img?.data || !img.width || !img.height || !img.kind) return null;
  return { width: img.width, height: img.height, data: img.data, kind: img.kind };
}
