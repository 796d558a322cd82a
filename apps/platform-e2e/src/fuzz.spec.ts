import fc from 'fast-check';
import { Client } from 'pg';
import { call, CallOptions, Module, Reply, setupValue, tokenFor } from '../support/client';
import { CURRENT, isTusRoute, LIVE, TUS_SUCCESS, TUS_UPLOAD_LENGTH, tusDraftOf } from '../support/fuzz-tus';

/**
 * Schema-driven fuzzing of every route of every module through the gateway: requests
 * are generated from each module's own OpenAPI description (valid-looking values, wrong
 * types, unknown and prototype keys, odd path segments, every identity and none). Every
 * answer must be below 500; every error must be a problem body carrying the request id;
 * and an error must leave the databases as they were. The tus routes of the records
 * module get valid tus requests with hostile headers and upload ids in their place
 * (support/fuzz-tus.ts), and a valid one must get the tus answer. The number of requests per
 * module is E2E_FUZZ_RUNS (default 120); the seed is printed and can be fixed with
 * E2E_FUZZ_SEED to replay a failure.
 */

const RUNS = Number(process.env['E2E_FUZZ_RUNS'] ?? 120);
const SEED = Number(process.env['E2E_FUZZ_SEED'] ?? Date.now() % 2 ** 31);

/** Tables whose rows change on refused requests by design, or in the background. */
const VOLATILE_TABLES = new Set([
  'auth_throttle', // failed sign-ins are counted
  'outbox_events', // the relay marks rows published
  'activity_log_entries', // the writer inserts what earlier changes published
  'activity_log_counts', // … and counts it
  'file_purges', // queued byte removals are carried out on a timer
  'vault_feed', // the change-feed consumer appends what earlier changes published
  'vault_feed_horizon', // … and prunes it
  'webhook_deliveries', // the fan-out queues deliveries of earlier changes, the dispatcher sends them
  'account_directory', // the directory consumer copies accounts that user-service published
  'file_texts', // the text extractor indexes files that earlier uploads queued
  'file_text_pages', // … page by page
  'search_words', // … and its triggers keep the tenant's word list
  'migrations',
]);

/** Columns that background work changes in tables that are otherwise watched. */
const VOLATILE_COLUMNS: Record<string, string[]> = {
  webhooks: ['failing_since'], // the dispatcher marks a subscription whose endpoint fails
};

/** Operations left out: they would end the fuzzing identities' own session or account. */
const SKIPPED = [
  { method: 'delete', path: /\/accounts\/logout$/ },
  { method: 'delete', path: /\/accounts\/account-id\/\{[^}]+\}$/ },
];

type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  nullable?: boolean;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
type OpenApi = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

interface Identity {
  name: string;
  token?: string;
}

interface FuzzRequest {
  method: string;
  path: string;
  options: CallOptions;
  /** The statuses a valid tus request may get. */
  expected?: number[];
}

const JUNK_STRINGS = [
  '',
  ' ',
  'x'.repeat(3000),
  '\u202e\u0301é😀',
  '../../etc/passwd',
  '%',
  "'; DROP TABLE vaults; --",
  '<script>',
];

const junk = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.constantFrom(...JUNK_STRINGS),
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant({}),
    fc.constant([]),
    fc.constant(JSON.parse('{"__proto__":{"admin":true}}')),
    fc.constant(JSON.parse('{"constructor":{"prototype":{"admin":true}}}')),
  );

function valueOf(api: OpenApi, schema: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return junk();
  if (schema.$ref) return valueOf(api, api.components?.schemas?.[schema.$ref.split('/').pop() ?? ''], depth + 1);
  const alternatives = schema.allOf ?? schema.oneOf ?? schema.anyOf;
  if (alternatives?.length) return valueOf(api, alternatives[0], depth + 1);
  let valid: fc.Arbitrary<unknown>;
  if (schema.enum?.length) valid = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string' && schema.format === 'uuid') valid = fc.uuid();
  else if (schema.type === 'string' && schema.format === 'date-time')
    valid = fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  else if (schema.type === 'string') valid = fc.string({ minLength: 1, maxLength: 30 });
  else if (schema.type === 'integer') valid = fc.integer({ min: -5, max: 500 });
  else if (schema.type === 'number') valid = fc.double({ noNaN: true });
  else if (schema.type === 'boolean') valid = fc.boolean();
  else if (schema.type === 'array') valid = fc.array(valueOf(api, schema.items, depth + 1), { maxLength: 3 });
  else if (schema.properties) valid = objectOf(api, schema, depth);
  else valid = junk();
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: junk() });
}

function objectOf(api: OpenApi, schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, valueOf(api, s, depth + 1)]));
  return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

/** A body for the operation: mostly schema-shaped, sometimes with extra keys, sometimes not an object. */
function bodyOf(api: OpenApi, op: Operation): fc.Arbitrary<Partial<CallOptions>> {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const shaped = schema ? (valueOf(api, schema, 0) as fc.Arbitrary<unknown>) : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: shaped.map((body) => (body === undefined ? {} : { body })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(shaped, fc.string({ minLength: 1, maxLength: 12 }), junk())
        .map(([b, k, v]) => ({ body: { ...(typeof b === 'object' && b ? b : {}), [k]: v } })),
    },
    { weight: 1, arbitrary: junk().map((body) => ({ body })) },
    {
      weight: 1,
      arbitrary: fc
        // malformed JSON, and JSON whose bytes are not UTF-8 (a lone lead byte, an overlong slash)
        .constantFrom<string | Buffer>(
          '{',
          '{"a":',
          'null',
          '\u0000',
          '[]',
          Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]),
          Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
        )
        .map((raw) => ({ raw, headers: { 'content-type': 'application/json' } })),
    },
  );
}

/** Path characters and %XX escapes only. */
const PATH_SAFE = /^(?:[\w\-.~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+$/;

/** A path segment: the real value for its name (when there is one), a foreign one, or anything. */
function segmentOf(known: string[], knownWeight = 4): fc.Arbitrary<string> {
  return (
    fc
      .oneof(
        { weight: knownWeight, arbitrary: fc.constantFrom(...known) },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: fc.constantFrom('not-a-uuid', '0', '..', '%2e%2e', 'a%00b', 'x'.repeat(300), '%E2%82%AC') },
        { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
      )
      // a segment with %XX escapes is sent as it is (pre-encoded on purpose) when it holds nothing
      // else a path may not: otherwise it is encoded, or the client itself would refuse the path
      .map((s) => (/%[0-9A-Fa-f]{2}/.test(s) && PATH_SAFE.test(s) ? s : encodeURIComponent(s)))
  );
}

function requestsOf(
  api: OpenApi,
  known: Record<string, string[]>,
  identities: Identity[],
  only?: (template: string, method: string) => boolean,
): fc.Arbitrary<FuzzRequest & { identity: Identity }> {
  const anyKnown = [...new Set(Object.values(known).flat())];
  // the owner most of the time, so that requests get past authorisation as well
  const identity = fc.oneof(
    { weight: 4, arbitrary: fc.constant(identities[0]) },
    { weight: 3, arbitrary: fc.constantFrom(...identities.slice(1)) },
  );
  const ops: fc.Arbitrary<FuzzRequest & { identity: Identity }>[] = [];
  for (const [template, methods] of Object.entries(api.paths)) {
    // Paths are after the server's /api/v1 (docs/openapi.md).
    if (/openapi|docs/.test(template)) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (SKIPPED.some((s) => s.method === method && s.path.test(template)) || (only && !only(template, method))) continue;
      const tus = isTusRoute(template, method);
      const params = op.parameters ?? [];
      const pathNames = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const query = params.filter((p) => p.in === 'query');
      ops.push(
        fc
          .record({
            segments: fc.tuple(...pathNames.map((name) => segmentOf(known[name] ?? anyKnown, tus ? 20 : 4))),
            query: fc.tuple(...query.map((p) => fc.option(valueOf(api, p.schema, 0), { nil: undefined }))),
            body: tus ? fc.constant({}) : bodyOf(api, op),
            identity,
            draft: tus ? tusDraftOf(method) : fc.constant(undefined),
          })
          .map(({ segments, query: values, body, identity, draft }) => {
            let options: CallOptions = { ...body, token: identity.token };
            let expected: number[] | undefined;
            if (draft) {
              // the upload id is the draft's; a valid request by the owner on the real vault and record must succeed
              if (pathNames.at(-1) === 'uploadId') segments[segments.length - 1] = draft.id;
              options = { headers: draft.headers, raw: draft.raw, token: identity.token };
              const onKnown = pathNames.every((name, i) => name === 'uploadId' || known[name]?.includes(segments[i]));
              // (checked in the run of the tus routes alone: other routes may delete the vault meanwhile)
              if (only && draft.mutations.length === 0 && identity === identities[0] && onKnown)
                expected = TUS_SUCCESS[method.toUpperCase()];
            }
            let path = template;
            pathNames.forEach((name, i) => (path = path.replace(`{${name}}`, segments[i])));
            const qs = new URLSearchParams();
            query.forEach((p, i) => {
              const v = values[i];
              if (v !== undefined) qs.set(p.name, typeof v === 'string' ? v : JSON.stringify(v));
            });
            const search = qs.toString();
            return {
              method: method.toUpperCase(),
              path: search ? `${path}?${search}` : path,
              options,
              expected,
              identity,
            };
          }),
      );
    }
  }
  return fc.oneof(...ops);
}

/** Row counts and content hashes of every table that a refused request must not change. */
async function fingerprint(clients: Client[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const client of clients) {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name: table } of rows) {
      if (VOLATILE_TABLES.has(table)) continue;
      const r = await client.query<{ n: string; h: string | null }>(
        `SELECT count(*) AS n, md5(string_agg(r, '|' ORDER BY r)) AS h
           FROM (SELECT (to_jsonb(t) - $1::text[])::text AS r FROM "${table}" t) rows`,
        [VOLATILE_COLUMNS[table] ?? []],
      );
      out.set(`${client.database}.${table}`, `${r.rows[0].n}:${r.rows[0].h}`);
    }
  }
  return out;
}

const changedTables = (a: Map<string, string>, b: Map<string, string>) =>
  [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));

function describeFailure(req: FuzzRequest & { identity: Identity }, res: Reply, why: string): string {
  const headers = req.options.headers ? ` and headers ${JSON.stringify(req.options.headers).slice(0, 300)}` : '';
  return `${why}: ${req.method} ${req.path} as ${req.identity.name} with ${JSON.stringify(req.options.body ?? req.options.raw ?? null).slice(0, 300)}${headers} -> ${res.status} ${res.text.slice(0, 300)} (seed ${SEED})`;
}

/** The open uploads of the owner, newest last: what LIVE stands for. */
const liveUploads: string[] = [];

/** Puts the newest open upload (or a stranger's UUID) for LIVE, and its offset, asked with HEAD, for CURRENT. */
async function resolveTus<R extends FuzzRequest>(req: R): Promise<R> {
  if (!req.path.includes(LIVE)) return req;
  const live = liveUploads.at(-1);
  const path = req.path.replace(LIVE, live ?? '00000000-0000-4000-8000-000000000000');
  const headers = { ...req.options.headers };
  if (headers['Upload-Offset'] === CURRENT) {
    const head = await call('records', 'HEAD', path, { token: req.options.token, headers: { 'Tus-Resumable': '1.0.0' } });
    headers['Upload-Offset'] = String(head.headers['upload-offset'] ?? '0');
  }
  return { ...req, path, options: { ...req.options, headers }, expected: live ? req.expected : undefined };
}

/** Opens an upload (tus creation) for the tus routes to aim at (LIVE); answers its id. */
async function openUpload(token: string, vaultId: string, recordId: string): Promise<string> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const res = await call('records', 'POST', `/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads`, {
    token,
    headers: {
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(TUS_UPLOAD_LENGTH),
      'Upload-Metadata': `fileName ${b64(`fuzz-${Date.now()}.bin`)},correlationId ${b64('260101120000')},fileType ${b64('document')}`,
    },
  });
  expect(res.status).toBe(201);
  return String(res.headers['location']).split('/').pop() as string;
}

/**
 * Keeps liveUploads current: a creation of the run's length adds its upload, a termination or
 * the last chunk removes it. A creation with another length that is still valid (` 5`: HTTP
 * drops the whitespace around a field value) is not one to aim at: a valid PATCH may send more
 * than it holds, which is rightly a 413.
 */
function trackUploads(req: FuzzRequest, res: Reply): void {
  const length = req.options.headers?.['Upload-Length']?.trim();
  if (
    req.method === 'POST' &&
    res.status === 201 &&
    typeof res.headers['location'] === 'string' &&
    length === String(TUS_UPLOAD_LENGTH)
  ) {
    liveUploads.push(String(res.headers['location'].split('/').pop()));
  }
  const done = (req.method === 'DELETE' && res.status === 204) || (req.method === 'PATCH' && res.headers['record-file-id']);
  const id = req.path.split('?')[0].split('/').pop();
  if (done && liveUploads.includes(id ?? '')) liveUploads.splice(liveUploads.indexOf(id ?? ''), 1);
}

describe('fuzzing every route through the gateway', () => {
  const clients: Client[] = [];
  let identities: Identity[];
  const known: Record<string, string[]> = {};

  beforeAll(async () => {
    const [gus, gil, dee] = await Promise.all([
      tokenFor('gamma', 'gamma-app', 'gamma-secret', 'gus@gamma.example', 'gus-password-1'),
      tokenFor('gamma', 'gamma-app', 'gamma-secret', 'gil@gamma.example', 'gil-password-1'),
      tokenFor('delta', 'delta-app', 'delta-secret', 'dee@delta.example', 'dee-password-1'),
    ]);
    identities = [
      { name: 'gus (owner)', token: gus },
      { name: 'gil (same tenant, no role)', token: gil },
      { name: 'dee (other tenant)', token: dee },
      { name: 'nobody' },
      { name: 'a forged token', token: `${gus.split('.').slice(0, 2).join('.')}.AAAA` },
    ];
    // Real ids for the generator to aim at: gus's vault and record, and the identities' names.
    const vault = await call('records', 'POST', '/vault', { token: gus, body: { name: 'Fuzz vault' } });
    const record = await call('records', 'POST', `/vault/vault-id/${vault.body.id}/records`, {
      token: gus,
      body: { name: 'Fuzz record', description: 'x', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    const gusAccount = await call('user', 'POST', '/accounts', { token: gus, body: { firstName: 'Gus', lastName: 'Gamma' } });
    Object.assign(known, {
      vaultId: [vault.body.id],
      recordId: [record.body.id],
      tenantId: ['gamma', 'alpha'],
      clientId: ['gamma-app'],
      id: [String(gusAccount.body?.id ?? gusAccount.body?._id ?? 'none')],
      openId: [JSON.parse(Buffer.from(gus.split('.')[1], 'base64url').toString()).sub],
      username: ['gus@gamma.example'],
    });
    liveUploads.push(await openUpload(gus, vault.body.id, record.body.id));
    const admin = new URL(setupValue('E2E_ADMIN_URL'));
    for (const database of Object.values(JSON.parse(setupValue('E2E_DATABASES')) as Record<string, string>)) {
      const url = new URL(admin);
      url.pathname = `/${database}`;
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      clients.push(client);
    }
    console.log(`fuzz seed ${SEED}, ${RUNS} requests per module`);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
  });

  /** Sends RUNS requests of the module's routes (those `only` keeps); answers the statuses seen. */
  async function fuzz(module: Module, only?: (template: string, method: string) => boolean): Promise<Map<number, number>> {
    const token = identities[0].token;
    const api = (await call(module, 'GET', '/openapi.json', { token })).body as OpenApi;
    expect(Object.keys(api.paths).length).toBeGreaterThan(2);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestsOf(api, known, identities, only), async (generated) => {
        const req = await resolveTus(generated);
        const before = await fingerprint(clients);
        const res = await call(module, req.method, req.path, req.options);
        trackUploads(req, res);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) throw new Error(describeFailure(req, res, 'server error'));
        if (req.expected && !req.expected.includes(res.status))
          throw new Error(describeFailure(req, res, `a valid tus request not answered ${req.expected.join(' or ')}`));
        if (res.status < 400) return;
        const problem = /application\/problem\+json/.test(String(res.headers['content-type']));
        if (/\/oauth\/token$/.test(req.path.split('?')[0]) && !problem) {
          // the OAuth token endpoint answers RFC 6749 §5.2 error bodies (docs/errors.md); what the
          // platform refuses before the route runs (a NUL in the path's ids) is a problem body
          if (typeof res.body?.error !== 'string')
            throw new Error(describeFailure(req, res, 'OAuth error without an error code'));
        } else {
          if (!problem) {
            throw new Error(describeFailure(req, res, 'error without a problem body'));
          }
          // a HEAD answer has no body (tus's HEAD of an upload): its problem shows in the headers only
          if (req.method !== 'HEAD' && (!res.body?.requestId || res.body.requestId !== res.headers['x-request-id'])) {
            throw new Error(describeFailure(req, res, 'problem body without the request id'));
          }
        }
        const changed = changedTables(before, await fingerprint(clients));
        if (changed.length > 0) throw new Error(describeFailure(req, res, `refused but changed ${changed.join(', ')}`));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(
      `${module}${only ? ' (tus)' : ''}: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    return statuses;
  }

  it.each<Module>(['developer', 'user', 'records'])(
    '%s: no 5xx, problem bodies with request ids, nothing stored on a refusal',
    async (module) => {
      const statuses = await fuzz(module);
      // the generator reaches past validation and authorisation too, not only refusals
      expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    },
  );

  it('records tus routes: hostile headers and upload ids are 4xx problems, valid requests get the tus answer', async () => {
    // a vault, record and upload of their own: the run of every route may have deleted gus's
    const gus = identities[0].token as string;
    for (const id of liveUploads.splice(0)) {
      const path = `/vault/vault-id/${known['vaultId'][0]}/records/record-id/${known['recordId'][0]}/uploads/${id}`;
      await call('records', 'DELETE', path, { token: gus, headers: { 'Tus-Resumable': '1.0.0' } });
    }
    const vault = await call('records', 'POST', '/vault', { token: gus, body: { name: 'Fuzz uploads' } });
    const record = await call('records', 'POST', `/vault/vault-id/${vault.body.id}/records`, {
      token: gus,
      body: { name: 'Fuzz uploads', description: 'x', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    Object.assign(known, { vaultId: [vault.body.id], recordId: [record.body.id] });
    liveUploads.push(await openUpload(gus, vault.body.id, record.body.id));
    const statuses = await fuzz('records', isTusRoute);
    // creations and chunks got through, not only refusals
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([201, 204]));
  });
});
