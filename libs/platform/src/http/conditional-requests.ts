import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { COMMON_ERRORS } from '@vault/contracts';
import type { Request, Response } from 'express';
import { ServiceEnv } from '../config/env';
import { ProblemException } from '../errors/problem.exception';

/*
 * Conditional requests (RFC 9110, section 13) of every service (docs/retries-and-concurrency.md):
 *
 * - a resource's validator is a strong entity tag naming one stored version,
 *   `"<resource id>.<version>"` (versionETag); each service reads the version of its
 *   own rows, every change increments it;
 * - a handler returns `new ETagged(body, etag)`; the answer carries the ETag (the
 *   platform's Express adapter, PlatformExpressAdapter, as it writes the answer) and, on
 *   GET/HEAD, is 304 (no body) when If-None-Match matches (weak comparison, `*`, lists)
 *   or 412 when an If-Match does not;
 * - writes (PUT/DELETE) get the request's If-Match as an IfMatchCondition (@IfMatch())
 *   and check it in the write's own transaction, under the row lock, so a stale tag
 *   is 412 and nothing changes; with REQUIRE_IF_MATCH=true a write without If-Match is
 *   428 before its body is read.
 */

/**
 * A strong entity tag naming one version of one resource: `"<id>.<version>"`. A
 * representation that also depends on the caller (the caller's roles shown in the body)
 * names that too, `"<id>.<version>.<variant>"`, so a caller whose view changed never
 * gets a 304 for the view it held before.
 */
export function versionETag(id: string, version: number, variant?: string): string {
  return variant ? `"${id}.${version}.${variant}"` : `"${id}.${version}"`;
}

/** One member of an If-Match or If-None-Match list. */
interface EntityTag {
  weak: boolean;
  /** The opaque tag with its quotes. */
  tag: string;
}

/** `entity-tag` (RFC 9110, 8.8.3) followed by a comma or the end. */
const MEMBER = /[ \t]*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/**
 * An If-Match or If-None-Match value: `*`, the list of entity tags (empty list members
 * allowed), or `invalid` when any member is not an entity tag. Undefined: no header.
 */
export function parseETagList(value: string | string[] | undefined): '*' | EntityTag[] | 'invalid' | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(',') : value).trim();
  if (text === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < text.length) {
    const skipped = /^[ \t]*,/.exec(text.slice(at));
    if (skipped) {
      at += skipped[0].length;
      continue;
    }
    MEMBER.lastIndex = at;
    const m = MEMBER.exec(text);
    if (!m) return 'invalid';
    tags.push({ weak: m[1] !== undefined, tag: m[2] });
    at = MEMBER.lastIndex;
  }
  return tags.length > 0 ? tags : 'invalid';
}

/**
 * If-Match (RFC 9110, 13.1.1): true without the header; `*` holds for an existing
 * resource; otherwise a listed tag must equal `current` by strong comparison (a weak
 * tag never matches). An unparsable value never holds; null `current` (no stored
 * representation) holds only without the header.
 */
export function ifMatchHolds(header: string | string[] | undefined, current: string | null): boolean {
  const list = parseETagList(header);
  if (list === undefined) return true;
  if (current === null || list === 'invalid') return false;
  if (list === '*') return true;
  return list.some((t) => !t.weak && t.tag === current);
}

/**
 * If-None-Match (RFC 9110, 13.1.2) matches, so a GET answers 304: `*`, or a listed tag
 * equal to `current` by weak comparison. False without the header or when unparsable.
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, current: string): boolean {
  const list = parseETagList(header);
  if (list === undefined || list === 'invalid') return false;
  if (list === '*') return true;
  const opaque = current.replace(/^W\//, '');
  return list.some((t) => t.tag === opaque);
}

/** 412 precondition_failed: the resource is not at the version the client named. */
export function preconditionFailed(): ProblemException {
  return ProblemException.of(
    COMMON_ERRORS.preconditionFailed,
    'If-Match does not name the current version of the resource; read it again and retry.',
  );
}

/**
 * The If-Match of a write, handed by the controller to its service, which checks it
 * against the current version inside the write's transaction, after taking the row lock.
 */
export class IfMatchCondition {
  /** A write without If-Match: every version passes. */
  static readonly absent = new IfMatchCondition(undefined);

  constructor(readonly header: string | undefined) {}

  /** Throws 412 unless If-Match (when sent) names `current`, the locked row's ETag (null: no row). */
  assert(current: string | null): void {
    if (!this.holds(current)) throw preconditionFailed();
  }

  /** Whether If-Match (when sent) names `current` (null: no row); true without If-Match. */
  holds(current: string | null): boolean {
    return ifMatchHolds(this.header, current);
  }
}

/** The request's If-Match as an IfMatchCondition (a handler parameter). */
export const IfMatch = createParamDecorator(
  (_: unknown, ctx: ExecutionContext) => new IfMatchCondition(ctx.switchToHttp().getRequest<Request>().headers['if-match']),
);

/**
 * A response body with the ETag of the version it shows; the platform's Express adapter
 * sends both (answerTagged). `vary` names the request headers the
 * representation depends on beyond the URL (`Authorization` for a body showing the
 * caller's roles), sent as `Vary`.
 */
export class ETagged<T> {
  constructor(
    readonly body: T,
    readonly etag: string,
    readonly vary?: string,
  ) {}

  /** Never sent as it is: an app that would (one without PlatformExpressAdapter) fails loudly instead. */
  toJSON(): never {
    throw new Error('an ETagged answer reached the JSON writer: the app must use PlatformExpressAdapter');
  }
}

/** What answerTagged returns for a GET or HEAD whose If-None-Match matches: 304, no body. */
export const NOT_MODIFIED = Symbol('not modified');

/**
 * Sends the ETag (and Vary) of a tagged answer and, for GET and HEAD, evaluates the
 * request's preconditions: 412 (thrown) when If-Match names no current version,
 * NOT_MODIFIED when If-None-Match matches; otherwise the body to send.
 */
export function answerTagged(req: Request, res: Response, tagged: ETagged<unknown>): unknown {
  res.setHeader('ETag', tagged.etag);
  if (tagged.vary) res.vary(tagged.vary);
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (!ifMatchHolds(req.headers['if-match'], tagged.etag)) throw preconditionFailed();
    if (ifNoneMatchMatches(req.headers['if-none-match'], tagged.etag)) return NOT_MODIFIED;
  }
  return tagged.body;
}

const CONDITIONAL_KIND = 'vault:conditional';

/**
 * What a route does with validators: `read` (GET), `write` (PUT: If-Match, new ETag in
 * the answer), `delete` (If-Match, no ETag after), `create` (POST: ETag of the new resource).
 */
export type ConditionalKind = 'read' | 'write' | 'delete' | 'create';

/** 428 precondition_required: REQUIRE_IF_MATCH is on and the write names no version. */
function preconditionRequired(): ProblemException {
  return ProblemException.of(
    COMMON_ERRORS.preconditionRequired,
    'This write needs an If-Match header with the ETag of the version it changes.',
  );
}

/**
 * Writes (`@Conditional('write' | 'delete')`): 428 before the body is read and the handler
 * runs when REQUIRE_IF_MATCH asks for If-Match (a guard: after the route's role guards, before
 * the request body guard that PlatformModule appends last).
 */
@Injectable()
export class IfMatchRequiredGuard implements CanActivate {
  constructor(private readonly env: ServiceEnv) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (this.env.REQUIRE_IF_MATCH && ctx.switchToHttp().getRequest<Request>().headers['if-match'] === undefined) {
      throw preconditionRequired();
    }
    return true;
  }
}

const ETAG_RESPONSE_HEADER = {
  ETag: {
    description:
      'Strong entity tag of the version shown, `"<id>.<version>"`; views showing the caller\'s roles (vaults, records) add them, ' +
      '`"<id>.<version>.<roles>"`, and answer `Vary: Authorization`. Send it back in If-None-Match or If-Match.',
    schema: { type: 'string' },
  },
};

/**
 * The ETag response header when the route (its handler, decorated with @Conditional below
 * the caller's decorator) answers one on success: for success responses described later.
 */
export function etagHeaderOf(handler: object): typeof ETAG_RESPONSE_HEADER | undefined {
  const kind = Reflect.getMetadata(CONDITIONAL_KIND, handler) as ConditionalKind | undefined;
  return kind && kind !== 'delete' ? ETAG_RESPONSE_HEADER : undefined;
}

/** Adds the ETag header to the 2xx responses already described on the route. */
function ETagOnSuccess(): MethodDecorator {
  return (_target, _key, descriptor) => {
    const key = 'swagger/apiResponse';
    const responses = (Reflect.getMetadata(key, descriptor.value as object) ?? {}) as Record<string, { headers?: object }>;
    const merged = Object.fromEntries(
      Object.entries(responses).map(([status, r]) =>
        /^2/.test(status) ? [status, { ...r, headers: { ...r.headers, ...ETAG_RESPONSE_HEADER } }] : [status, r],
      ),
    );
    Reflect.defineMetadata(key, merged, descriptor.value as object);
    return descriptor;
  };
}

const IF_MATCH_DOC = {
  name: 'If-Match',
  required: false,
  description:
    'ETag of the version the write expects (or `*`); another version answers 412 and changes nothing. Required (428 without it) when the service runs with REQUIRE_IF_MATCH=true.',
};

/**
 * A route taking part in conditional requests (docs/retries-and-concurrency.md): its
 * handler returns ETagged results, and the OpenAPI description names the headers and
 * the 304/412/428 answers. Put it above the route's success response decorators: it
 * adds the ETag header to them.
 */
export function Conditional(kind: ConditionalKind): MethodDecorator {
  // No interceptor (each one costs every request an rxjs chain and two AsyncResource
  // bindings, see PlatformExpressAdapter): the adapter's reply answers ETagged results, an
  // Idempotency-Key stores them as sent (answerTagged), writes check If-Match in a guard.
  const kindOf = SetMetadata(CONDITIONAL_KIND, kind);
  if (kind === 'read') {
    return applyDecorators(
      ETagOnSuccess(),
      kindOf,
      ApiHeader({
        name: 'If-None-Match',
        required: false,
        description: 'ETags (or `*`) the client holds; a match answers 304 without a body.',
      }),
      ApiHeader({ name: 'If-Match', required: false, description: 'ETags (or `*`); when none is the current version, 412.' }),
      ApiResponse({
        status: 304,
        description: 'Not Modified: If-None-Match names the current version; no body.',
        headers: ETAG_RESPONSE_HEADER,
      }),
      ApiResponse({ status: 412, description: 'precondition_failed: If-Match names no current version.' }),
    );
  }
  if (kind === 'write' || kind === 'delete') {
    return applyDecorators(
      ...(kind === 'write' ? [ETagOnSuccess()] : []),
      kindOf,
      UseGuards(IfMatchRequiredGuard),
      ApiHeader(IF_MATCH_DOC),
      ApiResponse({
        status: 412,
        description: 'precondition_failed: If-Match does not name the current version; nothing changed.',
      }),
      ApiResponse({ status: 428, description: 'precondition_required: REQUIRE_IF_MATCH is on and the request has no If-Match.' }),
    );
  }
  return applyDecorators(ETagOnSuccess(), kindOf);
}
