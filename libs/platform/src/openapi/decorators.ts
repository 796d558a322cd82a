import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiParam, ApiProduces, ApiResponse, ApiSecurity, getSchemaPath } from '@nestjs/swagger';
import { NEXT_CURSOR_DESCRIPTION, type ErrorEntry } from '@vault/contracts';
import { RESPONSE_HEADERS, ResponseHeaderName } from './headers';
import { BEARER_SCHEME } from './problem-schema';

/** What a status means when the route gives no description of its own. */
export const PROBLEM_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'validation_failed: the request is malformed or a field is invalid (`errors` names them).',
  401: 'unauthorized: no token, or a token that is invalid, expired or revoked.',
  403: 'forbidden: the caller sees the resource but its role does not allow this.',
  404: 'not_found: no such resource visible to the caller.',
  405: 'method_not_allowed.',
  406: 'not_acceptable: the Accept header names no type the route answers.',
  409: 'conflict: the request conflicts with the current state.',
  411: 'length_required: the body has no declared length.',
  412: 'precondition_failed: If-Match names no current version.',
  413: 'payload_too_large: the body or file is larger than allowed.',
  415: 'unsupported_media_type: the Content-Type is not one the route reads.',
  416: 'range_not_satisfiable: the Range lies outside the file.',
  422: 'unprocessable_content: the request is well-formed but cannot be applied.',
  428: 'precondition_required: this write needs an If-Match header.',
  429: 'too_many_requests: a rate limit or throttle refused the request; wait Retry-After seconds.',
  500: 'internal_error.',
  502: 'bad_gateway: the module behind the gateway did not answer properly.',
  503: 'service_unavailable: the module is starting, stopping or a dependency is down; retry later.',
  504: 'gateway_timeout: the module did not answer in time.',
};

/** A status a route answers: a number, a number with its own description, or an entry of the error catalogue. */
export type DocumentedProblem = number | [number, string] | ErrorEntry;

/**
 * Documents the error statuses a route answers, each with the problem+json body (the
 * document builder attaches the schema and the headers). Catalogue entries are the most
 * precise: `ApiProblems(USER_ERRORS.emailExists, USER_ERRORS.tooManyEntries, 412)` lists
 * both codes under 409. A plain status gets the standard description.
 */
export function ApiProblems(...problems: DocumentedProblem[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, string[]>();
  for (const p of problems) {
    const [status, line] =
      typeof p === 'number'
        ? [p, PROBLEM_DESCRIPTIONS[p] ?? 'Problem.']
        : Array.isArray(p)
          ? p
          : [p.status, `\`${p.code}\`: ${p.meaning}`];
    byStatus.set(status, [...(byStatus.get(status) ?? []), line]);
  }
  return applyDecorators(...[...byStatus].map(([status, lines]) => ApiResponse({ status, description: lines.join(' ') })));
}

/** A route that needs the bearer token (the builder also adds it to every route not marked public). */
export const ApiBearer = (): MethodDecorator & ClassDecorator => ApiBearerAuth(BEARER_SCHEME);

/**
 * A route called without a token: `security: []`. Routes marked `@Public()` get it from
 * the document builder already; use this on routes the access guard does not see.
 */
export const ApiPublic = (): MethodDecorator & ClassDecorator => ApiSecurity(PUBLIC_MARKER);

/** Security requirement name the builder turns into `security: []`. */
export const PUBLIC_MARKER = 'x-public';

/** Path parameters with a description each: `ApiPathParams({ vaultId: 'Vault id.' })`. */
export function ApiPathParams(params: Record<string, string>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...Object.entries(params).map(([name, description]) =>
      ApiParam({ name, description, required: true, schema: { type: 'string' } }),
    ),
  );
}

/** Response headers by name (headers.ts), for the status given. */
export function headersOf(names: readonly ResponseHeaderName[], required: readonly ResponseHeaderName[] = []) {
  return Object.fromEntries(names.map((n) => [n, { ...RESPONSE_HEADERS[n], required: required.includes(n) }]));
}

/**
 * One page of a list paged by number, the platform's list rule: `{data: Item[], page: PageInfo,
 * nextCursor}` (the contract's activity-log page with the top-level `nextCursor` of every list;
 * docs/openapi.md, "Lists").
 */
export function ApiPage(item: Type<unknown>, page: Type<unknown>, description = 'One page of the list.') {
  return applyDecorators(
    ApiExtraModels(item, page),
    ApiResponse({
      status: 200,
      description,
      schema: {
        type: 'object',
        required: ['data', 'page', 'nextCursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          page: { $ref: getSchemaPath(page) },
          nextCursor: { type: 'string', nullable: true, description: NEXT_CURSOR_DESCRIPTION },
        },
      },
    }),
  );
}

/** A Server-Sent Events stream (`text/event-stream`), with what its events carry. */
export function ApiEventStream(description: string, headers: ResponseHeaderName[] = []): MethodDecorator {
  return applyDecorators(
    ApiProduces('text/event-stream'),
    ApiResponse({
      status: 200,
      description,
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            description: 'Events as `id:`, `event:` and `data:` lines (the data one JSON object), separated by a blank line.',
          },
        },
      },
      headers: headersOf(headers),
    }),
  );
}
