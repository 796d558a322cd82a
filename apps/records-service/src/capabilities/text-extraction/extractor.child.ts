import { closeOcr, extract } from './extract';
import type { ExtractionRequest, ExtractionResponse } from './extraction.types';

/** The process mode of an extractor: `node main.js text-extractor`, forked by ExtractorPool. */
export const EXTRACTOR_MODE = 'text-extractor';

/**
 * An extractor process: takes one file at a time from its parent over IPC and answers
 * its text. Nothing in it reaches the network: fetch is refused, OCR language data comes
 * from the npm packages. It exits when the parent goes.
 */
export function runExtractorProcess(): void {
  globalThis.fetch = () => Promise.reject(new Error('no network access in the text extractor'));
  process.on('message', (req: ExtractionRequest) => {
    void extract(req).then((result) => {
      const answer: ExtractionResponse = { id: req.id, result };
      process.send?.(answer);
    });
  });
  process.send?.({ ready: true });
  process.on('disconnect', () => {
    void closeOcr().finally(() => process.exit(0));
  });
}
