#!/usr/bin/env node
/**
 * Reference server of the API benchmark (bench/api/run.mjs): the measured records-service
 * routes written by hand on `node:http`, `jose` and `pg`, doing the same work per request:
 *
 * - the bearer token verified with jose against the same JWKS (createRemoteJWKSet: keys
 *   imported once per kid), ES256 only, issuer, audience, expiry, 24 h maximum age,
 *   required claims and a revocation lookup (an in-memory map, as the services keep);
 * - the same SQL, as records-service needs it: the vault of the tenant with the caller's
 *   role (and the route's live record with the caller's record role) in one statement,
 *   then the route's own statements; creates and updates in one transaction with the
 *   outbox row, the create's quota check as the conditional increment of the vault's
 *   live-record counter;
 * - the same answer bodies (field for field), the record catalogue read once at start.
 *
 * Bodies are checked only for the fields the SQL needs (no full validation).
 *
 * Environment: PORT, DATABASE_URL, AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE,
 * DB_POOL_SIZE (10, as TypeORM's default pool).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const require = createRequire(import.meta.url);
const { Pool } = require('pg');

const env = process.env;
const pool = new Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10) });
const jwks = createRemoteJWKSet(new URL(env.AUTH_JWKS_URL));
const VERIFY = {
  algorithms: ['ES256'],
  issuer: env.AUTH_ISSUER ?? 'https://developer-api.localhost:8443/api/v1',
  audience: env.AUTH_AUDIENCE ?? 'vault-api',
  maxTokenAge: '24h',
};
const revoked = new Map();
const INBOX_DOMAIN = env.VAULT_INBOX_DOMAIN ?? 'inbox.vault.localhost';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VAULT_LEVELS = {
  owner: ['vault_owner'],
  editor: ['vault_owner', 'vault_editor'],
  viewer: ['vault_owner', 'vault_editor', 'vault_viewer'],
};
const RECORD_LEVELS = { viewer: ['rec_owner', 'rec_editor', 'rec_viewer'], editor: ['rec_owner', 'rec_editor'] };

class HttpError extends Error {
  constructor(status, title) {
    super(title);
    this.status = status;
  }
}

// ---- catalogue, plans (read once) -------------------------------------------------------

const catalogue = { types: new Map(), subtypes: new Map(), byName: new Map() };
async function loadCatalogue() {
  const types = await pool.query('SELECT id, name, vault_type, order_id, logo, display_value FROM record_types');
  const subtypes = await pool.query(
    'SELECT id, record_type_id, name, order_id, logo, display_value, block_sections FROM record_subtypes',
  );
  for (const t of types.rows) catalogue.types.set(t.id, t);
  for (const s of subtypes.rows) {
    catalogue.subtypes.set(s.id, s);
    catalogue.byName.set(`${catalogue.types.get(s.record_type_id).name}/${s.name}`, s);
  }
}
const plans = JSON.parse(env.BENCH_PLANS_JSON ?? '{"plans":[],"defaultPlan":""}');
const planOf = (planId) => plans.plans.find((p) => p.id === planId) ?? plans.plans.find((p) => p.id === plans.defaultPlan);

// ---- activity-log paging: as records-service pages (counts table when the schema has it) --

let logCounts = false;
async function detectSchema() {
  const r = await pool.query(`SELECT to_regclass('activity_log_counts') IS NOT NULL AS counts`);
  logCounts = r.rows[0].counts;
}

// ---- authentication and access -------------------------------------------------------

async function authenticate(req) {
  const h = req.headers.authorization;
  if (!h || !h.startsWith('Bearer ')) throw new HttpError(401, 'A valid access token is required.');
  let claims;
  try {
    claims = (await jwtVerify(h.slice(7), jwks, VERIFY)).payload;
  } catch {
    throw new HttpError(401, 'A valid access token is required.');
  }
  const { sub, tid, jti, exp } = claims;
  if (typeof sub !== 'string' || typeof tid !== 'string' || typeof jti !== 'string' || !exp) {
    throw new HttpError(401, 'The access token lacks required claims.');
  }
  if (revoked.has(jti)) throw new HttpError(401, 'The access token has been revoked.');
  return { openId: sub, tenantId: tid, username: claims.preferred_username };
}

const VAULT_COLUMNS = `v.id, v.tenant_id, v.name, v.email_username, v.profile_photo, v.first_name, v.last_name, v.type,
  v.is_default, v.editable, v.brand_code, v.status, v.active, v.created_at, v.updated_at, vm.role AS vault_role`;
const RECORD_COLUMNS = `r.id AS r_id, r.vault_id AS r_vault_id, r.tenant_id AS r_tenant_id, r.name AS r_name,
  r.description AS r_description, r.unique_reference AS r_unique_reference, r.storage_location AS r_storage_location,
  r.record_type_id AS r_record_type_id, r.record_subtype_id AS r_record_subtype_id,
  r.record_subtype_other AS r_record_subtype_other, r.editable AS r_editable, r.record_details AS r_record_details,
  r.status AS r_status, r.active AS r_active, r.created_by AS r_created_by, r.last_modified_by AS r_last_modified_by,
  r.created_at AS r_created_at, r.updated_at AS r_updated_at, rm.role AS record_role`;

/** The vault of the caller's tenant with the caller's role, at least `level` (404/403). */
async function vaultAccess(p, vaultId, level) {
  if (!UUID.test(vaultId)) throw new HttpError(404, 'Vault not found.');
  const { rows } = await pool.query(
    `SELECT ${VAULT_COLUMNS} FROM vaults v
     LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $2
     WHERE v.id = $1 AND v.tenant_id = $3`,
    [vaultId, p.openId, p.tenantId],
  );
  const v = rows[0];
  if (!v || !v.vault_role) throw new HttpError(404, 'Vault not found.');
  if (!VAULT_LEVELS[level].includes(v.vault_role)) throw new HttpError(403, 'Forbidden.');
  return v;
}

/** The vault and its live record with the caller's roles, at least `level` on the record (404/403). */
async function recordAccess(p, vaultId, recordId, level) {
  if (!UUID.test(vaultId)) throw new HttpError(404, 'Vault not found.');
  if (!UUID.test(recordId)) throw new HttpError(404, 'Record not found.');
  const { rows } = await pool.query(
    `SELECT ${VAULT_COLUMNS}, ${RECORD_COLUMNS} FROM vaults v
     LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $2
     LEFT JOIN records r ON r.id = $4 AND r.vault_id = v.id AND r.tenant_id = v.tenant_id AND r.status <> 'DELETED'
     LEFT JOIN record_memberships rm ON rm.record_id = r.id AND rm.open_id = $2
     WHERE v.id = $1 AND v.tenant_id = $3`,
    [vaultId, p.openId, p.tenantId, recordId],
  );
  const row = rows[0];
  if (!row) throw new HttpError(404, 'Vault not found.');
  if (!row.r_id || (!row.vault_role && !row.record_role)) throw new HttpError(404, 'Record not found.');
  const byVault = row.vault_role && VAULT_LEVELS[level === 'viewer' ? 'viewer' : 'editor'].includes(row.vault_role);
  if (!byVault && !RECORD_LEVELS[level].includes(row.record_role)) throw new HttpError(403, 'Forbidden.');
  const record = {};
  for (const [k, v] of Object.entries(row)) if (k.startsWith('r_')) record[k.slice(2)] = v;
  return { vault: row, record, vaultRole: row.vault_role, recordRole: row.record_role };
}

// ---- views ---------------------------------------------------------------------------

const inLocale = (dv, locale) => (locale && dv[locale] !== undefined ? { [locale]: dv[locale] } : dv);
const typeRef = (t, locale) => ({ id: t.id, name: t.name, logo: t.logo, displayValue: inLocale(t.display_value, locale) });

function vaultView(v, plan) {
  return {
    id: v.id,
    name: v.name,
    email: v.email_username ? `${v.email_username}@${INBOX_DOMAIN}` : null,
    profilePhoto: v.profile_photo,
    firstName: v.first_name,
    lastName: v.last_name,
    type: v.type,
    default: v.is_default,
    editable: v.editable,
    brandCode: v.brand_code,
    active: v.active,
    status: v.status,
    userVaultRole: v.vault_role ? [v.vault_role] : [],
    subscriptionFeatures: { ...plan.features },
    createdAt: v.created_at.toISOString(),
    updatedAt: v.updated_at.toISOString(),
  };
}

function lookupView(r, vaultRole, recordRole, files) {
  const type = catalogue.types.get(r.record_type_id);
  const subtype = catalogue.subtypes.get(r.record_subtype_id);
  const details = r.record_details ?? {};
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    uniqueReference: r.unique_reference,
    storageLocation: r.storage_location,
    recordSubtypeOther: r.record_subtype_other,
    editable: r.editable,
    status: r.status,
    active: r.active,
    lastModifiedBy: r.last_modified_by,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    recordDetails: {
      ...details,
      cloudStorageFolder: Array.isArray(details.cloudStorageFolder) ? details.cloudStorageFolder : [],
    },
    recordSubtype: { ...typeRef(subtype), orderId: subtype.order_id, blockSections: { ...subtype.block_sections } },
    recordType: { ...typeRef(type), orderId: type.order_id, vaultType: type.vault_type },
    filesHistory: files.map((f) => ({
      cloaudStorage: f.file_type === 'cloud',
      active: f.active,
      fileName: f.file_name,
      caption: f.caption,
      fileType: f.file_type,
      fileUrl: `/vault/vault-id/${r.vault_id}/records/record-id/${f.record_id}/record-files/${encodeURIComponent(f.file_name)}`,
      uploader: f.uploader,
      fileSize: Number(f.size),
      updatedAt: f.updated_at.toISOString(),
      correlationId: f.correlation_id,
      uploadTitle: f.upload_title,
    })),
    userVaultRole: vaultRole ? [vaultRole] : [],
    userRecordRole: recordRole ? [recordRole] : [],
  };
}

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const bold = (s) => `<b>${(s ?? '').replace(/[&<>"']/g, (c) => ESC[c])}</b>`;
const timeFormat = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});
function logEntry(e) {
  const phrase =
    e.entity === 'Vault'
      ? `the vault ${bold(e.vault_name)}`
      : e.entity === 'License'
        ? `a license for the vault ${bold(e.vault_name)}`
        : e.entity === 'File'
          ? `the file ${bold(e.file_name)} of the record ${bold(e.record_name)}`
          : `the record ${bold(e.record_name)}`;
  return {
    user: e.actor_name,
    action: e.action,
    entity: e.entity,
    vaultId: e.vault_id,
    vaultName: e.vault_name,
    time: timeFormat.format(e.occurred_at),
    rawTime: e.occurred_at.toISOString(),
    id: e.event_id,
    recordId: e.record_id,
    recordName: e.record_name,
    fileName: e.file_name,
    message: `${bold(e.actor_name)} ${e.action} ${phrase}`,
  };
}

/** The page object of the activity log (docs/activity-log.md, paging rules). */
function pageInfo(totalItems, currentPage, pageSize) {
  const totalPages = Math.max(1, Math.ceil(totalItems / pageSize));
  const startIndex = (currentPage - 1) * pageSize;
  const endIndex = Math.min(startIndex + pageSize, totalItems) - 1;
  const current = Math.min(currentPage, totalPages);
  let startPage;
  let endPage;
  if (totalPages <= 10) [startPage, endPage] = [1, totalPages];
  else if (current <= 5) [startPage, endPage] = [1, 10];
  else if (current + 4 >= totalPages) [startPage, endPage] = [totalPages - 9, totalPages];
  else [startPage, endPage] = [current - 5, current + 4];
  const pages = [];
  for (let i = startPage; i <= endPage; i++) pages.push(i);
  return { totalItems, currentPage, pageSize, totalPages, startPage, endPage, startIndex, endIndex, pages };
}

// ---- routes ----------------------------------------------------------------------------

async function getVault(p, vaultId) {
  const v = await vaultAccess(p, vaultId, 'viewer');
  const lic = await pool.query(
    'SELECT plan_id FROM vault_licenses WHERE vault_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
    [v.id],
  );
  return [200, vaultView(v, planOf(lic.rows[0]?.plan_id))];
}

async function getRecord(p, vaultId, recordId) {
  const { record, vaultRole, recordRole } = await recordAccess(p, vaultId, recordId, 'viewer');
  const files = await pool.query(
    `SELECT record_id, file_name, file_type, caption, active, uploader, size, updated_at, correlation_id, upload_title
     FROM record_files WHERE record_id = $1 ORDER BY created_at DESC, id DESC`,
    [record.id],
  );
  return [200, lookupView(record, vaultRole, recordRole, files.rows)];
}

async function searchRecords(p, vaultId, query) {
  const v = await vaultAccess(p, vaultId, 'viewer');
  const locale = query.get('locale') ?? undefined;
  const { rows } = await pool.query(
    `SELECT id, name, storage_location, record_subtype_other, description, record_type_id, record_subtype_id, status,
       updated_at, last_modified_by, editable
     FROM records WHERE vault_id = $1 AND status <> 'DELETED' ORDER BY updated_at DESC, id ASC`,
    [v.id],
  );
  const contributors = new Map();
  if (rows.length) {
    const m = await pool.query(
      'SELECT record_id, open_id FROM record_memberships WHERE record_id = ANY($1::uuid[]) ORDER BY created_at ASC',
      [rows.map((r) => r.id)],
    );
    for (const r of m.rows) contributors.set(r.record_id, [...(contributors.get(r.record_id) ?? []), r.open_id]);
  }
  return [
    200,
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      storageLocation: r.storage_location,
      recordSubtypeOther: r.record_subtype_other,
      description: r.description,
      recordSubtype: typeRef(catalogue.subtypes.get(r.record_subtype_id), locale),
      recordType: typeRef(catalogue.types.get(r.record_type_id), locale),
      status: r.status,
      updatedAt: r.updated_at.toISOString(),
      lastModifiedBy: r.last_modified_by,
      contributors: contributors.get(r.id) ?? [],
      editable: r.editable ?? true,
    })),
  ];
}

function recordFields(body) {
  if (typeof body?.name !== 'string' || typeof body.description !== 'string') throw new HttpError(400, 'Invalid body.');
  const subtype = catalogue.byName.get(`${body.recordTypeName}/${body.recordSubtypeName}`);
  if (!subtype) throw new HttpError(400, 'Unknown record type or subtype.');
  const type = catalogue.types.get(subtype.record_type_id);
  return { type, subtype };
}

function recordEvent(p, vault, record, typeName) {
  return {
    tenantId: p.tenantId,
    actor: { openId: p.openId, username: p.username ?? p.openId },
    vault: { id: vault.id, name: vault.name },
    occurredAt: new Date().toISOString(),
    record: { id: record.id, name: record.name },
    recordTypeName: typeName,
  };
}

async function inTransaction(work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const OUTBOX_INSERT =
  'INSERT INTO outbox_events (id, subject, tenant_id, vault_id, payload, occurred_at) VALUES ($1, $2, $3, $4, $5, $6)';

async function createRecord(p, vaultId, body) {
  const v = await vaultAccess(p, vaultId, 'editor');
  const { type, subtype } = recordFields(body);
  const id = randomUUID();
  const by = p.username ?? p.openId;
  return inTransaction(async (c) => {
    await c.query(
      `INSERT INTO records (id, tenant_id, vault_id, name, description, unique_reference, storage_location, record_type_id,
         record_subtype_id, record_subtype_other, editable, record_details, status, active, created_by, last_modified_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'ACTIVE', true, $13, $14)`,
      [
        id,
        v.tenant_id,
        v.id,
        body.name,
        body.description,
        body.uniqueReference ?? null,
        body.storageLocation ?? null,
        type.id,
        subtype.id,
        subtype.name === 'other' ? (body.recordSubtypeOther ?? null) : null,
        body.editable ?? null,
        body.recordDetails ?? {},
        p.openId,
        by,
      ],
    );
    await c.query('INSERT INTO record_memberships (record_id, tenant_id, open_id, role) VALUES ($1, $2, $3, $4)', [
      id,
      v.tenant_id,
      p.openId,
      'rec_owner',
    ]);
    const event = recordEvent(p, v, { id, name: body.name }, type.name);
    await c.query(OUTBOX_INSERT, [randomUUID(), 'vault.record.created.v1', v.tenant_id, v.id, event, event.occurredAt]);
    // the quota: the vault's plan, then one conditional increment of its live-record counter, last
    const lic = await c.query(
      'SELECT plan_id FROM vault_licenses WHERE vault_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
      [v.id],
    );
    const max = Number(planOf(lic.rows[0]?.plan_id)?.features['vault.maxVaultRecords'] ?? 0);
    const claimed = await c.query(
      'UPDATE vaults SET live_records = live_records + 1 WHERE id = $1 AND live_records < $2 RETURNING id',
      [v.id, max],
    );
    if (claimed.rowCount !== 1) throw new HttpError(409, 'max_records_reached');
    return [200, { id }];
  });
}

async function updateRecord(p, vaultId, recordId, body) {
  const { vault, record } = await recordAccess(p, vaultId, recordId, 'editor');
  const { type, subtype } = recordFields(body);
  const by = p.username ?? p.openId;
  return inTransaction(async (c) => {
    const locked = await c.query(
      `SELECT id, name, unique_reference, storage_location, editable, record_details FROM records
       WHERE id = $1 AND vault_id = $2 AND status <> 'DELETED' FOR UPDATE`,
      [record.id, vault.id],
    );
    const r = locked.rows[0];
    if (!r) throw new HttpError(404, 'Record not found.');
    await c.query(
      `UPDATE records SET name = $2, description = $3, record_type_id = $4, record_subtype_id = $5, record_subtype_other = $6,
         unique_reference = $7, storage_location = $8, editable = $9, record_details = $10, last_modified_by = $11, updated_at = now()
       WHERE id = $1`,
      [
        r.id,
        body.name,
        body.description,
        type.id,
        subtype.id,
        subtype.name === 'other' ? (body.recordSubtypeOther ?? null) : null,
        body.uniqueReference !== undefined ? body.uniqueReference : r.unique_reference,
        body.storageLocation !== undefined ? body.storageLocation : r.storage_location,
        body.editable !== undefined ? body.editable : r.editable,
        body.recordDetails !== undefined ? (body.recordDetails ?? {}) : r.record_details,
        by,
      ],
    );
    const event = recordEvent(p, vault, { id: r.id, name: body.name }, type.name);
    await c.query(OUTBOX_INSERT, [randomUUID(), 'vault.record.updated.v1', vault.tenant_id, vault.id, event, event.occurredAt]);
    return [200, { id: r.id }];
  });
}

const LOG_COLUMNS = `event_id, vault_id, entity, action, actor_name, vault_name, record_id, record_name, file_name, details, occurred_at`;
const LOG_ORDER = (dir) => `ORDER BY occurred_at ${dir}, logged_at ${dir}, event_id ${dir}`;

async function logPage(p, vaultId, query) {
  const v = await vaultAccess(p, vaultId, 'viewer');
  const page = Number(query.get('page') ?? 1);
  const pageSize = Number(query.get('pageSize') ?? 20);
  if (!(page >= 1 && pageSize >= 1 && pageSize <= 100)) throw new HttpError(400, 'Invalid paging.');
  const offset = (page - 1) * pageSize;
  let total;
  let rows;
  if (logCounts) {
    // counts kept by the writer; the older half of the log read backwards from its oldest entry
    total = Number(
      (await pool.query('SELECT COALESCE(SUM(total), 0) AS total FROM activity_log_counts WHERE vault_id = $1', [v.id])).rows[0]
        .total,
    );
    const fromEnd = total - offset - pageSize;
    if (offset <= total / 2 || fromEnd + pageSize <= 0) {
      rows = (
        await pool.query(
          `SELECT ${LOG_COLUMNS} FROM activity_log_entries WHERE vault_id = $1 ${LOG_ORDER('DESC')} OFFSET $2 LIMIT $3`,
          [v.id, offset, pageSize],
        )
      ).rows;
    } else {
      rows = (
        await pool.query(
          `SELECT ${LOG_COLUMNS} FROM activity_log_entries WHERE vault_id = $1 ${LOG_ORDER('ASC')} OFFSET $2 LIMIT $3`,
          [v.id, Math.max(0, fromEnd), pageSize + Math.min(0, fromEnd)],
        )
      ).rows.reverse();
    }
  } else {
    // as records-service without counts: the page (offset) and a COUNT of the vault's entries
    rows = (
      await pool.query(
        `SELECT ${LOG_COLUMNS} FROM activity_log_entries WHERE vault_id = $1 AND tenant_id = $2 ${LOG_ORDER('DESC')} OFFSET $3 LIMIT $4`,
        [v.id, v.tenant_id, offset, pageSize],
      )
    ).rows;
    total = Number(
      (
        await pool.query('SELECT count(*) AS n FROM activity_log_entries WHERE vault_id = $1 AND tenant_id = $2', [
          v.id,
          v.tenant_id,
        ])
      ).rows[0].n,
    );
  }
  return [200, { data: rows.map(logEntry), page: pageInfo(total, page, pageSize) }];
}

// ---- server ------------------------------------------------------------------------------

const ROUTE = /^\/api\/v1\/vault\/vault-id\/([^/]+)(?:\/(records|log)(?:\/record-id\/([^/]+))?)?$/;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 1024 * 1024) reject(new HttpError(413, 'Too large.'));
      else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new HttpError(400, 'Invalid JSON.'));
      }
    });
    req.on('error', reject);
  });
}

async function handle(req) {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/health/ready') return [200, { status: 'ok' }];
  const m = ROUTE.exec(url.pathname);
  if (!m) throw new HttpError(404, 'Not found.');
  const principal = await authenticate(req);
  const [, vaultId, sub, recordId] = m;
  const key = `${req.method} ${sub ?? 'vault'}${recordId ? '/record' : ''}`;
  switch (key) {
    case 'GET vault':
      return getVault(principal, vaultId);
    case 'GET records':
      return searchRecords(principal, vaultId, url.searchParams);
    case 'POST records':
      return createRecord(principal, vaultId, await readBody(req));
    case 'GET records/record':
      return getRecord(principal, vaultId, recordId);
    case 'PUT records/record':
      return updateRecord(principal, vaultId, recordId, await readBody(req));
    case 'GET log':
      return logPage(principal, vaultId, url.searchParams);
    default:
      throw new HttpError(404, 'Not found.');
  }
}

const server = createServer((req, res) => {
  handle(req).then(
    ([status, body]) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
    (err) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) console.error(err);
      const text = JSON.stringify({ type: 'about:blank', title: err.message, status });
      res.writeHead(status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      req.resume();
    },
  );
});
server.keepAliveTimeout = 65_000;

await loadCatalogue();
await detectSchema();
server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`reference listening on ${server.address().port} (activity-log counts: ${logCounts})`);
});
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
