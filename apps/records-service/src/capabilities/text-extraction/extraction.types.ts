/** Limits one file's extraction runs under (docs/search.md, Limits). */
export interface ExtractionLimits {
  /** Bytes of a file read at most; a larger file is `too_large`. */
  maxBytes: number;
  /** Pages (or sections) read at most; a longer document is read up to it and marked. */
  maxPages: number;
  /** Characters kept per page or section. */
  maxPageChars: number;
  /** Bytes an Office/ODF archive may inflate to (zip bombs are refused before parsing). */
  maxInflatedBytes: number;
  /** Whether pages without text (scans, images) are read by OCR. */
  ocr: boolean;
  /** Fewest letters a PDF page's text layer must hold, else the page is OCR'd. */
  ocrMinChars: number;
}

/** A job sent to an extractor process. */
export interface ExtractionRequest {
  id: number;
  bytes: Uint8Array;
  /** Tesseract language of the vault, e.g. eng or deu. */
  ocrLanguage: string;
  limits: ExtractionLimits;
}

/** A page or section of text. */
export interface ExtractedPage {
  page: number;
  text: string;
  ocr: boolean;
}

/** Why a file is unsearchable. */
export type FailureReason =
  | 'unsupported_type'
  | 'encrypted'
  | 'corrupt'
  | 'too_large'
  | 'zip_bomb'
  | 'timeout'
  | 'out_of_memory'
  | 'extractor_crashed'
  | 'attempts_exhausted'
  | 'no_text';

/** What an extractor answers. */
export type ExtractionResult =
  | { ok: true; detectedType: string; pages: ExtractedPage[]; truncated: boolean }
  | { ok: false; detectedType: string | null; reason: FailureReason; detail?: string };

export interface ExtractionResponse {
  id: number;
  result: ExtractionResult;
}

/** Raised inside an extractor for a file that cannot be read. */
export class UnreadableFile extends Error {
  constructor(
    readonly reason: FailureReason,
    detail?: string,
  ) {
    super(detail ?? reason);
  }
}

/**
 * The version of the extractors: stored with each extraction; `npm run search:reindex`
 * extracts again every file read by an older one. Raise it when an extractor changes.
 */
export const EXTRACTOR_VERSION = 1;
