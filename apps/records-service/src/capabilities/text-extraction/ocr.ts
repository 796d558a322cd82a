import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Decoded pixels as pdf.js hands them: kind 1 = 1 bit grey, 2 = RGB, 3 = RGBA. */
export interface RawImage {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray;
  kind: number;
}

/** The Tesseract languages shipped as npm packages (@tesseract.js-data/<lang>). */
export const OCR_LANGUAGES = ['eng', 'deu'] as const;

/* The part of tesseract.js used here. */
interface TesseractWorker {
  recognize(image: Buffer): Promise<{ data: { text: string } }>;
  terminate(): Promise<unknown>;
}

/**
 * A folder holding every language's traineddata from the npm packages, so that one
 * langPath (a local path, never a URL) serves them all: nothing is downloaded.
 */
function languageFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'vault-ocr-'));
  for (const lang of OCR_LANGUAGES) {
    const pkg = dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
    symlinkSync(join(pkg, '4.0.0_best_int', `${lang}.traineddata.gz`), join(folder, `${lang}.traineddata.gz`));
  }
  return folder;
}

/** Pixels as a binary PNM (P5 grey or P6 colour), which Tesseract's image reader takes as is. */
export function toPnm(img: RawImage): Buffer {
  const { width: w, height: h } = img;
  if (img.kind === 1) {
    const out = Buffer.alloc(w * h);
    const rowBytes = (w + 7) >> 3;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) out[y * w + x] = img.data[y * rowBytes + (x >> 3)] & (128 >> (x & 7)) ? 255 : 0;
    }
    return Buffer.concat([Buffer.from(`P5\n${w} ${h}\n255\n`), out]);
  }
  const step = img.kind === 3 ? 4 : 3;
  const out = Buffer.alloc(w * h * 3);
  for (let i = 0, o = 0; o < out.length; i += step, o += 3) {
    out[o] = img.data[i];
    out[o + 1] = img.data[i + 1];
    out[o + 2] = img.data[i + 2];
  }
  return Buffer.concat([Buffer.from(`P6\n${w} ${h}\n255\n`), out]);
}

/**
 * One Tesseract worker per language, made on first use and kept for the process (the
 * extractor process is the pool's unit: one file at a time each, see ExtractorPool).
 */
export class Ocr {
  private static folder?: string;
  private worker?: Promise<TesseractWorker>;

  constructor(private readonly language: string) {}

  async read(image: RawImage | Buffer): Promise<string> {
    const worker = await (this.worker ??= this.start());
    const input = Buffer.isBuffer(image) ? image : toPnm(image);
    return (await worker.recognize(input)).data.text;
  }

  async close(): Promise<void> {
    if (this.worker) await (await this.worker).terminate();
    this.worker = undefined;
  }

  private async start(): Promise<TesseractWorker> {
    Ocr.folder ??= languageFolder();
    const { createWorker } = require('tesseract.js') as {
      createWorker(lang: string, oem: number, options: object): Promise<TesseractWorker>;
    };
    return createWorker(this.language, 1, { langPath: Ocr.folder, gzip: true, cacheMethod: 'none' });
  }
}
