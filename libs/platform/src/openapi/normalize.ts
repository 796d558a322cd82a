import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ResponseObject } from '@nestjs/swagger';
import { PROBLEM_DESCRIPTIONS, PUBLIC_MARKER } from './decorators';
import { EVERY_ANSWER_HEADERS, RESPONSE_HEADERS } from './headers';
import { BEARER_SCHEME, PROBLEM_MEDIA_TYPE, PROBLEM_SCHEMA, PROBLEM_SCHEMA_NAME } from './problem-schema';
import { nullableToTypeArrays } from './schemas';

/** What the route's own metadata says about an operation (by operation id). */
export interface OperationFacts {
  /** The route's access rule (@Public, @Authenticated, @Access('vault:editor')...). */
  accessRule?: string;
}

export type WebhooksObject = Record<string, PathItemObject>;

export interface NormalizeOptions {
  /** The global prefix to move from the paths into the servers (`/api/v1`). */
  prefix: string;
  facts: Map<string, OperationFacts>;
  webhooks?: WebhooksObject;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Statuses any operation can answer: the gateway refuses malformed requests (400) and
 * rate-limited ones (429), and answers 502/503/504 when the module is down or slow;
 * a module answers 500 on a bug and 503 while it stops.
 */
const EVERY_OPERATION = [400, 429, 500, 502, 503, 504];

/** Each operation with its path and method, in document order. */
export function* operationsOf(doc: Pick<OpenAPIObject, 'paths'>): Generator<[string, string, OperationObject]> {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = (item as PathItemObject)[method];
      if (op) yield [path, method, op];
    }
  }
}

/**
 * Turns what @nestjs/swagger generates into the platform's OpenAPI 3.1 document: paths
 * without the version prefix (it is in the servers), every path parameter declared, the
 * bearer scheme on protected operations and `security: []` on public ones, every error
 * status with the problem+json body (and those the route's shape implies), the headers every answer carries, nullable fields
 * as type arrays, and the module's outbound webhooks.
 */
export function normalizeDocument(raw: OpenAPIObject, opts: NormalizeOptions): OpenAPIObject {
  const doc = JSON.parse(JSON.stringify(raw)) as OpenAPIObject;
  doc.openapi = '3.1.0';
  doc.info.license = { name: 'MIT', identifier: 'MIT' } as OpenAPIObject['info']['license'];
  doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [withoutPrefix(path, opts.prefix), item]));
  for (const [path, , op] of operationsOf(doc)) {
    declarePathParameters(path, op);
    const rule = opts.facts.get(op.operationId ?? '')?.accessRule;
    describeSecurity(op, rule);
    describeResponses(path, op, rule);
  }
  doc.components = { ...doc.components, headers: componentHeaders(), responses: componentResponses(usedResponses(doc)) };
  doc.components.schemas = { ...doc.components.schemas, [PROBLEM_SCHEMA_NAME]: PROBLEM_SCHEMA };
  if (opts.webhooks) (doc as OpenAPIObject & { webhooks?: WebhooksObject }).webhooks = opts.webhooks;
  doc.tags = tagsOf(doc);
  return pruneComponents(nullableToTypeArrays(doc));
}

/**
 * Drops the schemas no operation or webhook reaches (message payloads a handler's
 * parameter types bring in) and the bearer scheme when no operation needs it.
 */
function pruneComponents(doc: OpenAPIObject): OpenAPIObject {
  const schemas = doc.components?.schemas ?? {};
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        const name = key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') ? v.slice(21) : undefined;
        if (name && !reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        } else visit(v);
      }
    }
  };
  const { paths, components } = doc;
  visit([paths, (doc as { webhooks?: unknown }).webhooks, components?.responses, components?.headers]);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  const secured = [...operationsOf(doc)].some(([, , op]) => (op.security ?? []).length > 0);
  if (!secured) delete components?.securitySchemes;
  return doc;
}

function withoutPrefix(path: string, prefix: string): string {
  return path === prefix ? '/' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

/** Every `{name}` of the path as a required string parameter, unless the route declares it. */
function declarePathParameters(path: string, op: OperationObject): void {
  const params = (op.parameters ?? []) as ParameterObject[];
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  // A path parameter the path does not hold (a decorator's mistake) would make the document invalid.
  const kept = params.filter((p) => p.in !== 'path' || names.includes(p.name));
  for (const name of names) {
    if (!kept.some((p) => p.in === 'path' && p.name === name)) {
      kept.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  op.parameters = kept;
}

function describeSecurity(op: OperationObject, rule: string | undefined): void {
  const markedPublic = (op.security ?? []).some((s) => PUBLIC_MARKER in s);
  // `optional`: anonymous ({}) or with the bearer token
  if (rule === 'optional') op.security = [{}, { [BEARER_SCHEME]: [] }];
  else op.security = rule === 'public' || markedPublic ? [] : [{ [BEARER_SCHEME]: [] }];
}

/** The statuses the route's rule implies, each error with the problem body, the common headers on all. */
function describeResponses(path: string, op: OperationObject, rule: string | undefined): void {
  const implied = [...EVERY_OPERATION];
  if (rule !== 'public') implied.push(401);
  // A path naming a resource may name one that does not exist or that the caller cannot see.
  if (path.includes('{')) implied.push(404);
  // A domain rule (vault:editor, record:viewer...): a role too weak is 403.
  if (rule && rule.includes(':')) implied.push(403);
  if (op.requestBody) implied.push(413, 415);
  // Idempotency-Key: the same key while the first runs is 409, with another request 422.
  if ((op.parameters as ParameterObject[]).some((p) => p.in === 'header' && p.name === 'Idempotency-Key')) implied.push(409, 422);
  const responses = op.responses as Record<string, ResponseObject | { $ref: string }>;
  for (const status of implied) {
    if (!responses[status]) responses[status] = { $ref: `#/components/responses/Problem${status}` };
  }
  for (const [status, response] of Object.entries(responses)) {
    if ('$ref' in response) continue;
    // Problem bodies besides what the route declares (the OAuth token endpoint's RFC 6749 errors).
    if (Number(status) >= 400) response.content = { ...response.content, [PROBLEM_MEDIA_TYPE]: { schema: problemRef() } };
    response.headers = { ...commonHeaderRefs(Number(status)), ...response.headers };
    // Every 201 says where the created resource is (ApiCreated sends it).
    if (status === '201') response.headers['Location'] = { ...RESPONSE_HEADERS.Location, required: true };
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

const problemRef = () => ({ $ref: `#/components/schemas/${PROBLEM_SCHEMA_NAME}` });

function commonHeaderRefs(status: number): Record<string, { $ref: string }> {
  const names: string[] = [...EVERY_ANSWER_HEADERS];
  if (status === 429 || status === 503) names.push('Retry-After');
  if (status === 401) names.push('WWW-Authenticate');
  return Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
}

function componentHeaders() {
  return Object.fromEntries(
    [...EVERY_ANSWER_HEADERS, 'Retry-After', 'WWW-Authenticate'].map((n) => [
      n,
      RESPONSE_HEADERS[n as keyof typeof RESPONSE_HEADERS],
    ]),
  );
}

/** The `ProblemNNN` responses the operations refer to. */
function usedResponses(doc: OpenAPIObject): Set<string> {
  const used = new Set<string>();
  for (const [, , op] of operationsOf(doc)) {
    for (const r of Object.values(op.responses)) if (r && '$ref' in r) used.add(r.$ref.split('/').pop() ?? '');
  }
  return used;
}

/** `ProblemNNN`: the reusable error answers the operations refer to. */
function componentResponses(used: Set<string>): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(PROBLEM_DESCRIPTIONS)
      .filter(([status]) => used.has(`Problem${status}`))
      .map(([status, description]) => [
        `Problem${status}`,
        {
          description,
          headers: commonHeaderRefs(Number(status)),
          content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef() } },
        },
      ]),
  );
}

/** The tags the operations use, declared once each, sorted. */
function tagsOf(doc: OpenAPIObject): NonNullable<OpenAPIObject['tags']> {
  const declared = new Map((doc.tags ?? []).map((t) => [t.name, t]));
  for (const [, , op] of operationsOf(doc)) {
    for (const name of op.tags ?? []) if (!declared.has(name)) declared.set(name, { name, description: `${name} operations.` });
  }
  return [...declared.values()].sort((a, b) => a.name.localeCompare(b.name));
}
