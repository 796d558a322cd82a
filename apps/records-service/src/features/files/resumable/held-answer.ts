import { REPLAYED_HEADERS, StoredAnswer } from '@vault/platform/idempotency';
import type { Response } from 'express';
import { RECORD_FILE_ID_HEADER, RECORD_FILE_URL_HEADER } from './resumable-completion';

/** Headers of a creation's answer kept for its replays. */
const KEPT_HEADERS = new Set([
  ...REPLAYED_HEADERS,
  'tus-resumable',
  'upload-offset',
  'upload-expires',
  RECORD_FILE_ID_HEADER.toLowerCase(),
  RECORD_FILE_URL_HEADER.toLowerCase(),
]);

/**
 * Holds the answer written on `res` (tus's, or the problem filter's) until `settle` has
 * stored or released the key with it, then sends it. The answers of a creation are short.
 * A callback given to `end` is called once the answer sent is really ended (finished).
 */
export function holdAnswer(res: Response, settle: (answer: StoredAnswer) => Promise<void>): { readonly ended: boolean } {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  const state = { ended: false };
  let head: unknown[] | undefined;
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      typeof chunk === 'string'
        ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding)
        : Buffer.from(chunk as Uint8Array),
    );
  };
  res.writeHead = ((...args: unknown[]) => {
    head = args;
    return res;
  }) as Response['writeHead'];
  res.write = ((chunk: unknown, encoding?: unknown) => {
    collect(chunk, encoding);
    return true;
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    // end([chunk[, encoding]][, callback])
    const done = args.find((a) => typeof a === 'function');
    collect(args[0], args[1]);
    state.ended = true;
    const body = Buffer.concat(chunks);
    const answer = answerOf(res, head, body);
    const send = () => {
      if (head) writeHead(...head);
      end(body, done);
    };
    void settle(answer).then(send, send);
    return res;
  }) as Response['end'];
  return state;
}

/** Status, kept headers and body of an answer held by holdAnswer. */
function answerOf(res: Response, head: unknown[] | undefined, body: Buffer): StoredAnswer {
  const headers: Record<string, string> = {};
  const keep = (name: string, value: unknown) => {
    const lower = name.toLowerCase();
    if (KEPT_HEADERS.has(lower) && value !== undefined) headers[lower] = Array.isArray(value) ? value.join(', ') : String(value);
  };
  for (const [name, value] of Object.entries(res.getHeaders())) keep(name, value);
  const given = head?.find((a) => typeof a === 'object' && a !== null);
  if (Array.isArray(given)) {
    for (let i = 0; i + 1 < given.length; i += 2) keep(String(given[i]), given[i + 1]);
  } else if (given) {
    for (const [name, value] of Object.entries(given)) keep(name, value);
  }
  const status = typeof head?.[0] === 'number' ? head[0] : res.statusCode;
  return { status, headers, body: body.toString('utf8') };
}
