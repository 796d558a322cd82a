import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every answer the e2e suites receive through `call` (client.ts) is checked against the
 * merged OpenAPI document the gateway serves (libs/contracts/openapi/vault-api.json):
 * the status must be documented for the operation, a body must have a documented media
 * type and match its schema, required headers must be there. A mismatch throws, so the
 * test that received the answer fails.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface Exchange {
  module: string;
  method: string;
  /** The request target, with /api/v1 and the query. */
  path: string;
  requestHeaders: Record<string, string>;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

const DOC_ID = 'vault-api.json';
const DOCUMENT_FILE = join(__dirname, '../../../libs/contracts/openapi', DOC_ID);
const PREFIX = '/api/v1';

interface Route {
  module: string;
  pattern: RegExp;
  literal: number;
  item: Json;
  template: string;
}

let loaded: { doc: Json; ajv: Ajv2020; routes: Route[]; validators: Map<string, ValidateFunction> } | undefined;

function load() {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
  const routes = Object.entries(doc.paths as Record<string, Json>).map(([template, item]) => ({
    module: /^https:\/\/([a-z]+)-api\./.exec(item.servers?.[0]?.url ?? '')?.[1] ?? '',
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literal: template.replace(/\{[^}]+\}/g, '').length,
    item,
    template,
  }));
  routes.sort((a, b) => b.literal - a.literal);
  loaded = { doc, ajv, routes, validators: new Map() };
  return loaded;
}

/** The schema with its references pointed at the document held by Ajv. */
function anchored(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOC_ID}#/`));
}

function validatorFor(key: string, schema: Json): ValidateFunction {
  const state = load();
  let v = state.validators.get(key);
  if (!v) {
    v = state.ajv.compile(anchored(schema));
    state.validators.set(key, v);
  }
  return v;
}

function deref(value: Json): Json {
  if (value && typeof value.$ref === 'string' && value.$ref.startsWith('#/')) {
    return value.$ref
      .slice(2)
      .split('/')
      .reduce((node: Json, part: string) => node?.[part], load().doc);
  }
  return value;
}

/** A CORS preflight is the gateway's answer, not an operation of the API. */
function isPreflight(e: Exchange): boolean {
  const h = Object.fromEntries(Object.entries(e.requestHeaders).map(([k, v]) => [k.toLowerCase(), v]));
  return e.method === 'OPTIONS' && h['origin'] !== undefined && h['access-control-request-method'] !== undefined;
}

/** The problems of one answer against the document; [] when it matches. */
export function answerProblems(e: Exchange): string[] {
  if (isPreflight(e)) return [];
  const path = e.path.split('?')[0];
  // The documents themselves (/api/v1/openapi.json, /api/v1/openapi/vault-api.json, /api/v1/docs) are not operations.
  if (!path.startsWith(`${PREFIX}/`) || /^\/api\/v1\/(openapi\.json|openapi\/|docs(\/|$))/.test(path)) return [];
  const apiPath = path.slice(PREFIX.length);
  const route = load().routes.find((r) => r.module === e.module && r.pattern.test(apiPath));
  const method = e.method.toLowerCase();
  // HEAD is answered by the GET route unless the API has a HEAD operation of its own (tus).
  const operation = route?.item[method] ?? (method === 'head' ? route?.item['get'] : undefined);
  if (!route || !operation) {
    // No such operation: the answer must be an error with the problem body.
    if (e.status < 400) return [`${e.method} ${apiPath} answered ${e.status} but the document has no such operation`];
    return bodyProblems(e, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, 'problem');
  }
  const where = `${e.method} ${route.template} → ${e.status}`;
  const responses = operation.responses ?? {};
  const response = deref(responses[e.status] ?? responses[`${String(e.status)[0]}XX`] ?? responses['default']);
  if (!response) return [`${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
  const problems = headerProblems(e, response).map((p) => `${where}: ${p}`);
  if (e.method === 'HEAD') return problems;
  return [...problems, ...bodyProblems(e, response.content, `${where}`).map((p) => (p.startsWith(where) ? p : `${where}: ${p}`))];
}

function headerProblems(e: Exchange, response: Json): string[] {
  return Object.entries((response.headers ?? {}) as Record<string, Json>)
    .filter(([name, h]) => deref(h)?.required && e.headers[name.toLowerCase()] === undefined)
    .map(([name]) => `required header ${name} missing`);
}

function bodyProblems(e: Exchange, content: Json, key: string): string[] {
  const type = String(e.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (e.text.length === 0) return [];
  if (!content) return [`a ${type || 'untyped'} body where the document describes none`];
  const media = content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*'];
  if (!media) return [`content-type ${type || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`];
  if (!/json/.test(type) || !media.schema) return [];
  const validate = validatorFor(`${key} ${type}`, media.schema);
  if (validate(e.body)) return [];
  return (validate.errors ?? []).slice(0, 8).map((err) => `body${err.instancePath} ${err.message} ${JSON.stringify(err.params)}`);
}

/**
 * Throws when the answer does not match the document (see answerProblems). With
 * E2E_OPENAPI_REPORT=<file> it appends the mismatches to that file instead, so that one run
 * lists them all.
 */
export function assertDocumented(e: Exchange): void {
  const problems = answerProblems(e);
  const report = process.env['E2E_OPENAPI_REPORT'];
  if (problems.length > 0 && report) appendFileSync(report, problems.map((p) => `${p}\n`).join(''));
  else if (problems.length > 0) {
    throw new Error(
      `the answer does not match the OpenAPI document (libs/contracts/openapi/vault-api.json):\n  ${problems.join('\n  ')}\n` +
        `body: ${e.text.slice(0, 500)}`,
    );
  }
}
