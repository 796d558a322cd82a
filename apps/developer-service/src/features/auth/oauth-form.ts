import type { Request } from 'express';
import { invalidRequest } from './oauth.errors';

/** Largest token request body read (a few short fields). */
const MAX_FORM_BYTES = 16 * 1024;

/** The fields of a token request, each present at most once (RFC 6749 §3.2). */
export type OAuthForm = ReadonlyMap<string, string>;

/** Reads the form-encoded body of a token request; anything else is invalid_request. */
export async function readOAuthForm(req: Request): Promise<OAuthForm> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    await drain(req);
    throw invalidRequest('The body must be application/x-www-form-urlencoded.');
  }
  return parseOAuthForm(await readBody(req));
}

/** Parses a form body strictly: each field once, valid percent-encoding, UTF-8. */
export function parseOAuthForm(body: string): OAuthForm {
  const form = new Map<string, string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decode(at === -1 ? pair : pair.slice(0, at));
    const value = decode(at === -1 ? '' : pair.slice(at + 1));
    if (form.has(name)) throw invalidRequest(`The parameter ${printable(name)} is repeated.`);
    form.set(name, value);
  }
  // RFC 6749 §3.2: a parameter sent without a value is treated as omitted.
  return new Map([...form].filter(([, value]) => value !== ''));
}

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw invalidRequest('The body is not valid form encoding (a bad percent-escape or non-UTF-8 bytes).');
  }
}

function printable(name: string): string {
  return /^[\w.-]{1,64}$/.test(name) ? name : '(unnamed)';
}

async function readBody(req: Request): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw invalidRequest(`The body exceeds ${MAX_FORM_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest('The body is not valid form encoding (a bad percent-escape or non-UTF-8 bytes).');
  }
}

/** Reads and drops a body that will not be used, so the connection can serve the answer. */
async function drain(req: Request): Promise<void> {
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) break;
  }
}
