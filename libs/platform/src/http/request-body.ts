import { CanActivate, ExecutionContext, SetMetadata } from '@nestjs/common';
import { GUARDS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { COMMON_ERRORS, isForbiddenKey, MAX_JSON_BODY_BYTES, MAX_JSON_DEPTH, parseJsonObject } from '@vault/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { text, urlencoded } from 'express';
import { ProblemException } from '../errors/problem.exception';
import { invalidUtf8Offset } from './utf8';

/*
 * Request bodies of every service (docs/errors.md, Request bodies). Services boot
 * without Nest's own body parser (runService, bootTestApp); RequestBodyGuard, the last
 * guard of every route, reads the body of each routed request once its other guards
 * have passed and before any interceptor or pipe sees it:
 *
 * - a request carries a body when Content-Length is above 0 or Transfer-Encoding is
 *   present; only such a request is checked;
 * - JSON (application/json, application/*+json, UTF-8) and form-encoded bodies are
 *   read, any other type is 415; at most MAX_JSON_BODY_BYTES (413 beyond);
 * - a JSON or form body that is not well-formed UTF-8 is 400 naming the offset of
 *   its first bad byte (never decoded into replacement characters);
 * - a JSON body nested deeper than MAX_JSON_DEPTH is refused by a linear scan before
 *   it is parsed; it must hold an object; `__proto__` and `constructor` keys are
 *   refused at any depth as unknown fields;
 * - a route marked @ReadsOwnBody() (multipart uploads) gets its stream untouched.
 */

const READS_OWN_BODY = 'vault:reads-own-body';

/** The route reads its request body itself (multipart uploads): the platform neither checks its type nor reads it. */
export const ReadsOwnBody = () => SetMetadata(READS_OWN_BODY, true);

/** True when the request announces body bytes: Content-Length above 0, or any Transfer-Encoding. */
export function carriesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > 0;
}

type BodyKind = 'json' | 'form';

/** The media type of the request without parameters, lower case. */
function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function bodyKind(type: string): BodyKind | undefined {
  if (type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type)) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
}

function charsetOf(req: Request): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
}

const unsupported = (detail: string) => ProblemException.of(COMMON_ERRORS.unsupportedMediaType, detail);
const tooLarge = (headers?: Record<string, string>) =>
  ProblemException.of(
    COMMON_ERRORS.payloadTooLarge,
    `The request body exceeds the limit of ${MAX_JSON_BODY_BYTES} bytes (${MAX_JSON_BODY_BYTES / 1024 / 1024} MiB).`,
    { headers },
  );
const tooDeep = () =>
  ProblemException.badRequest(`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`);

/** A `__proto__` or `constructor` key, refused like every unknown field (the validation pipe's wording). */
function forbiddenField(field: string): ProblemException {
  const key = field.slice(field.lastIndexOf('.') + 1);
  return ProblemException.badRequest('The request has 1 invalid field.', [
    { field, message: `property ${key} should not exist` },
  ]);
}

/** Bytes that are not UTF-8 are refused rather than decoded into U+FFFD (a latin-1 form body is left alone). */
function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer, encoding?: string): void {
  if (encoding !== undefined && encoding.toLowerCase() !== 'utf-8' && encoding.toLowerCase() !== 'utf8') return;
  const offset = invalidUtf8Offset(body);
  if (offset !== -1) {
    throw ProblemException.badRequest(
      `The request body is not valid UTF-8: the byte at offset ${offset} does not start a well-formed sequence.`,
    );
  }
}

/** Form keys (`a[b][c]`) naming `__proto__` or `constructor` at any level: refused before qs drops them silently. */
function refuseForbiddenFormKeys(_req: unknown, _res: unknown, body: Buffer): void {
  for (const pair of body.toString('latin1').split('&')) {
    const segments = decodeFormComponent(pair.split('=', 1)[0]).split(/[[\]]+/);
    const at = segments.findIndex(isForbiddenKey);
    if (at !== -1)
      throw forbiddenField(
        segments
          .slice(0, at + 1)
          .filter(Boolean)
          .join('.'),
      );
  }
}

function decodeFormComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** body-parser refusals as problems (their own texts never reach the client). */
function readProblem(err: unknown): unknown {
  if (err instanceof ProblemException) return err;
  const { type, status } = (err ?? {}) as { type?: string; status?: number };
  switch (type) {
    case 'entity.too.large':
      return tooLarge();
    case 'parameters.too.many':
      return ProblemException.of(COMMON_ERRORS.payloadTooLarge, 'The form body has too many parameters.');
    case 'charset.unsupported':
      return unsupported('The charset of the request body is not supported; send UTF-8.');
    case 'encoding.unsupported':
      return unsupported('The Content-Encoding of the request body is not supported (identity, gzip, deflate or br).');
    case 'querystring.parse.rangeError':
      return tooDeep();
  }
  if (typeof status === 'number' && status < 500) {
    return ProblemException.badRequest(
      'The request body could not be read: it does not match its Content-Length or Content-Encoding, or it was cut off.',
    );
  }
  return err;
}

const readText = text({ type: () => true, limit: MAX_JSON_BODY_BYTES, defaultCharset: 'utf-8', verify: refuseInvalidUtf8 });
// body-parser 2 takes `depth` (qs counts the levels below the top-level object); its type declarations lack it
const formOptions: Parameters<typeof urlencoded>[0] & { depth: number } = {
  extended: true,
  limit: MAX_JSON_BODY_BYTES,
  depth: MAX_JSON_DEPTH - 1,
  verify: (req, res, body, encoding) => {
    refuseInvalidUtf8(req, res, body, encoding);
    refuseForbiddenFormKeys(req, res, body);
  },
};
const readForm = urlencoded(formOptions);

function run(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const next: NextFunction = (err?: unknown) => (err ? reject(readProblem(err)) : resolve());
    handler(req, res, next);
  });
}

/** Reads, checks and parses the body of a request onto `req.body` (see the rules above). */
export async function readRequestBody(req: Request, res: Response): Promise<void> {
  if (!carriesBody(req)) return;
  const type = mediaType(req);
  const kind = bodyKind(type);
  if (!kind) {
    throw unsupported(
      `${type ? `Content type ${type}` : 'A body without a content type'} is not accepted here; send application/json or application/x-www-form-urlencoded.`,
    );
  }
  if (Number(req.headers['content-length'] ?? 0) > MAX_JSON_BODY_BYTES) {
    // Announced too large: answer at once and close rather than read what will be refused.
    throw tooLarge({ Connection: 'close' });
  }
  if (kind === 'form') return run(readForm, req, res);

  const charset = charsetOf(req);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw unsupported('The charset of a JSON body must be UTF-8.');
  }
  await run(readText, req, res);
  if (typeof req.body !== 'string') {
    if (req.readableEnded && !req.readableAborted) {
      throw new Error('The request body was read before the platform: boot services without Nest body parsing.');
    }
    // The parser skips a request it takes for finished: the client went away, or closed its
    // side of the connection (a half-close) before its body was read.
    throw ProblemException.badRequest('The request body was cut off before it arrived whole.');
  }
  req.body = parseJsonBody(req.body);
}

function parseJsonBody(body: string): Record<string, unknown> {
  if (body.length === 0) return {};
  const parsed = parseJsonObject(body);
  if (parsed.ok) return parsed.value;
  switch (parsed.reason) {
    case 'too_deep':
      throw tooDeep();
    case 'not_object':
      throw ProblemException.badRequest('The request body must be a JSON object.');
    case 'forbidden_key':
      throw forbiddenField(parsed.field ?? '__proto__');
    default:
      throw ProblemException.badRequest('The request body is not valid JSON.');
  }
}

/**
 * Reads the body of a routed request (see the rules above): the last guard of every route
 * not marked @ReadsOwnBody(), so it runs once the route's own guards have passed, before any
 * interceptor (Idempotency-Key fingerprints the parsed body) and pipe. A guard rather than a
 * global interceptor: a bodiless request (most reads) costs one check, and a route without
 * interceptors of its own runs none (Nest builds no observables for it).
 */
export class RequestBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!carriesBody(req)) return true;
    return readRequestBody(req, http.getResponse<Response>()).then(() => true);
  }
}

/** The one guard instance every route shares (it keeps no state). */
export const REQUEST_BODY_GUARD = new RequestBodyGuard();

/**
 * Appends REQUEST_BODY_GUARD to the guards of every route handler of the app's controllers
 * but those marked @ReadsOwnBody() (on the handler or its controller). Runs while the app's
 * providers are made, before Nest reads the routes' guards; a handler that has it already
 * (another app of the same classes in this process) is left as it is. Returns the number
 * of routes that read their body here.
 */
export function installRequestBodyGuard(discovery: DiscoveryService): number {
  const scanner = new MetadataScanner();
  let routes = 0;
  for (const wrapper of discovery.getControllers()) {
    const type = wrapper.metatype as (abstract new (...args: never[]) => unknown) | undefined;
    if (!type?.prototype) continue;
    const ownClass = Reflect.getMetadata(READS_OWN_BODY, type) === true;
    for (const name of scanner.getAllMethodNames(type.prototype)) {
      const handler: unknown = (type.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const own = Reflect.getMetadata(READS_OWN_BODY, handler) as boolean | undefined;
      if (own ?? ownClass) continue;
      const guards = (Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[];
      if (!guards.includes(REQUEST_BODY_GUARD)) {
        Reflect.defineMetadata(GUARDS_METADATA, [...guards, REQUEST_BODY_GUARD], handler);
      }
      routes++;
    }
  }
  return routes;
}
