import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordRole, VaultRole } from '@vault/contracts';
import { listRouteRules } from '@vault/platform/auth';
import type { Test } from 'supertest';
import { filesPath, meta, upload } from './files-support';
import { Caller, recordBody, RecordsTestApp, writePlansFile } from './support';

/**
 * Every records-service route × every kind of caller (docs/records-api.md, Roles): the
 * status each one gets, and for every refusal that nothing changed in the database.
 * Refusals and reads run against one shared set of vaults; every permitted write runs
 * on a fresh set, so the table also shows what each role may change.
 */

const IDENTITIES = [
  'owner',
  'vaultEditor',
  'vaultViewer',
  'vaultInfo',
  'recEditor',
  'recViewer',
  'recInfo',
  'stranger',
  'otherTenant',
] as const;
type Identity = (typeof IDENTITIES)[number];

/** What each identity holds: a role on both vaults of a world, or on its shared record. */
const VAULT_GRANTS: Partial<Record<Identity, VaultRole>> = {
  vaultEditor: 'vault_editor',
  vaultViewer: 'vault_viewer',
  vaultInfo: 'vault_info',
};
const RECORD_GRANTS: Partial<Record<Identity, RecordRole>> = {
  recEditor: 'rec_editor',
  recViewer: 'rec_viewer',
  recInfo: 'rec_info',
};

/** The resources a call acts on: vault V holding records R (shared with record guests) and R2, vault D. */
interface World {
  vault: string;
  record: string;
  otherRecord: string;
  destination: string;
  fileName: string;
  /** The version of the file. */
  versionId: string;
  /** An open resumable upload on R created by the owner. */
  uploadId: string;
  /** Collaborator ids of the bystander, a member of V (vault_viewer) and of R (rec_viewer) that no identity is. */
  member: string;
  recordMember: string;
}

interface Route {
  name: string;
  /** The route pattern of the controller (checked against every declared route). */
  pattern: string;
  method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (w: World) => string;
  send?: (req: Test, w: World) => Test;
  /** Prepares a permitted call by `c` (a resumable upload of its own) and answers the path to call. */
  prepare?: (w: World, c: Caller) => Promise<string>;
  /** Whether the route changes something when it succeeds (run on a fresh world). */
  writes: boolean;
  /** Statuses in the order of IDENTITIES. */
  expect: number[];
}

const V = '/vault/vault-id/:vaultId';
const R = `${V}/records/record-id/:recordId`;
const vaultPath = (w: World) => `/vault/vault-id/${w.vault}`;
const recordPath = (w: World, id = w.record) => `${vaultPath(w)}/records/record-id/${id}`;
const TUS = { 'Tus-Resumable': '1.0.0' };
const tusMeta = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');
const UPLOAD_LENGTH = 16;

//                 owner vEdit vView vInfo rEdit rView rInfo strgr other
const anyCaller = (ok: number) => IDENTITIES.map(() => ok);
const seesVault = (ok: number) => [ok, ok, ok, ok, ok, ok, ok, 404, 404];
const vaultViewer = (ok: number) => [ok, ok, ok, 403, 403, 403, 403, 404, 404];
const vaultEditor = (ok: number) => [ok, ok, 403, 403, 403, 403, 403, 404, 404];
const vaultOwner = (ok: number) => [ok, 403, 403, 403, 403, 403, 403, 404, 404];
const recordViewer = (ok: number) => [ok, ok, ok, 403, ok, ok, 403, 404, 404];
const recordEditor = (ok: number) => [ok, ok, 403, 403, ok, 403, 403, 404, 404];
const recordOwner = (ok: number) => [ok, ok, 403, 403, 403, 403, 403, 404, 404];
const vaultMember = (ok: number) => [ok, ok, ok, ok, 403, 403, 403, 404, 404];
const seesRecord = (ok: number) => [ok, ok, ok, ok, ok, ok, ok, 404, 404];
/** The code of each refusal status (409: a claim of a vault whose owner is active). */
const REFUSAL_CODES: Record<number, string> = { 403: 'forbidden', 404: 'not_found', 409: 'vault_owner_active' };
const C = `${V}/collaborators`;
const RC = `${R}/collaborators`;

const ROUTES: Route[] = [
  { name: 'list vaults', pattern: 'GET /vault', method: 'GET', path: () => '/vault', writes: false, expect: anyCaller(200) },
  {
    name: 'check an inbox name',
    pattern: 'GET /vault/check-email',
    method: 'GET',
    path: () => '/vault/check-email?emailUsername=free-name',
    writes: false,
    expect: anyCaller(200),
  },
  { name: 'create a vault', pattern: 'POST /vault', method: 'POST', path: () => '/vault', writes: true, expect: anyCaller(201) },
  { name: 'get the vault', pattern: `GET ${V}`, method: 'GET', path: vaultPath, writes: false, expect: seesVault(200) },
  {
    name: 'update the vault',
    pattern: `PUT ${V}`,
    method: 'PUT',
    path: vaultPath,
    send: (req) => req.send({ name: 'Renamed' }),
    writes: true,
    expect: vaultEditor(201),
  },
  { name: 'delete the vault', pattern: `DELETE ${V}`, method: 'DELETE', path: vaultPath, writes: true, expect: vaultOwner(200) },
  {
    name: 'vault home',
    pattern: `GET ${V}/home`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/home`,
    writes: false,
    expect: seesVault(200),
  },
  {
    name: 'vault branding',
    pattern: `GET ${V}/branding`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/branding`,
    writes: false,
    expect: seesVault(200),
  },
  {
    name: 'vault licences',
    pattern: `GET ${V}/licenses`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/licenses`,
    writes: false,
    expect: vaultViewer(200),
  },
  {
    name: 'activity log',
    pattern: `GET ${V}/log`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/log`,
    writes: false,
    expect: vaultViewer(200),
  },
  {
    name: 'change feed',
    pattern: `GET ${V}/events`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/events`,
    writes: false,
    expect: seesVault(200),
  },
  {
    name: 'create a record',
    pattern: `POST ${V}/records`,
    method: 'POST',
    path: (w) => `${vaultPath(w)}/records`,
    send: (req) => req.send(recordBody({ name: 'New record' })),
    writes: true,
    expect: vaultEditor(200),
  },
  {
    name: 'search records',
    pattern: `GET ${V}/records`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/records`,
    writes: false,
    expect: seesVault(200),
  },
  {
    name: 'look the record up',
    pattern: `GET ${R}`,
    method: 'GET',
    path: (w) => recordPath(w),
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'look an unshared record up',
    pattern: `GET ${R}`,
    method: 'GET',
    path: (w) => recordPath(w, w.otherRecord),
    writes: false,
    //     owner vEdit vView vInfo rEdit rView rInfo strgr other
    expect: [200, 200, 200, 403, 404, 404, 404, 404, 404],
  },
  {
    name: 'update the record',
    pattern: `PUT ${R}`,
    method: 'PUT',
    path: (w) => recordPath(w),
    send: (req) => req.send(recordBody({ name: 'Changed' })),
    writes: true,
    expect: recordEditor(200),
  },
  {
    name: 'delete the record',
    pattern: `DELETE ${R}`,
    method: 'DELETE',
    path: (w) => recordPath(w),
    writes: true,
    expect: recordOwner(200),
  },
  {
    name: 'transfer the record',
    pattern: `PUT ${R}/transfer`,
    method: 'PUT',
    path: (w) => `${recordPath(w)}/transfer`,
    send: (req, w) => req.send({ destinationVaultId: w.destination }),
    writes: true,
    expect: vaultEditor(200),
  },
  {
    name: 'upload a file',
    pattern: `POST ${R}/record-files`,
    method: 'POST',
    path: (w) => filesPath(w.vault, w.record),
    send: (req) =>
      req
        .query(meta('260102120000_new.pdf'))
        .attach('file', randomBytes(100), { filename: 'new.pdf', contentType: 'application/pdf' }),
    writes: true,
    expect: recordEditor(201),
  },
  {
    name: 'list files',
    pattern: `GET ${R}/record-files`,
    method: 'GET',
    path: (w) => filesPath(w.vault, w.record),
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'download a file',
    pattern: `GET ${R}/record-files/:name`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}`,
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'update a file',
    pattern: `PUT ${R}/record-files/:name`,
    method: 'PUT',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}`,
    send: (req) => req.send({ correlationId: '260101120000', uploadTitle: 'Renamed scans' }),
    writes: true,
    expect: recordEditor(200),
  },
  {
    name: 'delete a file',
    pattern: `DELETE ${R}/record-files/:name`,
    method: 'DELETE',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}`,
    writes: true,
    expect: recordEditor(200),
  },
  {
    name: 'open a resumable upload',
    pattern: `POST ${R}/uploads`,
    method: 'POST',
    path: (w) => `${recordPath(w)}/uploads`,
    send: (req) =>
      req
        .set(TUS)
        .set('Upload-Length', String(UPLOAD_LENGTH))
        .set('Upload-Metadata', tusMeta(meta('260104120000_tus.pdf'))),
    writes: true,
    expect: recordEditor(201),
  },
  {
    // open to anyone; Tus-Max-Size only to uploaders (test/files-resumable.spec.ts)
    name: 'tus discovery',
    pattern: `OPTIONS ${R}/uploads`,
    method: 'OPTIONS',
    path: (w) => `${recordPath(w)}/uploads`,
    writes: false,
    expect: anyCaller(204),
  },
  {
    name: 'list collaborators',
    pattern: `GET ${C}`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/collaborators`,
    writes: false,
    expect: vaultMember(200),
  },
  {
    name: 'share the vault',
    pattern: `POST ${C}`,
    method: 'POST',
    path: (w) => `${vaultPath(w)}/collaborators`,
    send: (req) => req.send({ username: NEWCOMER, role: 'vault_viewer' }),
    writes: true,
    expect: vaultOwner(201),
  },
  {
    name: "change a collaborator's role",
    pattern: `PUT ${C}/collaborator-id/:collaboratorId`,
    method: 'PUT',
    path: (w) => `${vaultPath(w)}/collaborators/collaborator-id/${w.member}`,
    send: (req) => req.send({ role: 'vault_info' }),
    writes: true,
    expect: vaultOwner(200),
  },
  {
    name: 'remove a collaborator',
    pattern: `DELETE ${C}/collaborator-id/:collaboratorId`,
    method: 'DELETE',
    path: (w) => `${vaultPath(w)}/collaborators/collaborator-id/${w.member}`,
    writes: true,
    expect: vaultOwner(200),
  },
  {
    name: 'transfer the ownership',
    pattern: `PUT ${V}/owner`,
    method: 'PUT',
    path: (w) => `${vaultPath(w)}/owner`,
    send: (req, w) => req.send({ collaboratorId: w.member }),
    writes: true,
    expect: vaultOwner(200),
  },
  {
    // every owner of the matrix has an active account: the editor's claim is a conflict
    name: 'claim the ownership',
    pattern: `POST ${V}/claim-ownership`,
    method: 'POST',
    path: (w) => `${vaultPath(w)}/claim-ownership`,
    writes: false,
    expect: vaultEditor(409),
  },
  {
    name: 'list record collaborators',
    pattern: `GET ${RC}`,
    method: 'GET',
    path: (w) => `${recordPath(w)}/collaborators`,
    writes: false,
    expect: seesRecord(200),
  },
  {
    name: 'share the record',
    pattern: `POST ${RC}`,
    method: 'POST',
    path: (w) => `${recordPath(w)}/collaborators`,
    send: (req) => req.send({ username: NEWCOMER, role: 'rec_viewer' }),
    writes: true,
    expect: vaultOwner(201),
  },
  {
    name: "change a record collaborator's role",
    pattern: `PUT ${RC}/collaborator-id/:collaboratorId`,
    method: 'PUT',
    path: (w) => `${recordPath(w)}/collaborators/collaborator-id/${w.recordMember}`,
    send: (req) => req.send({ role: 'rec_info' }),
    writes: true,
    expect: vaultOwner(200),
  },
  {
    name: 'remove a record collaborator',
    pattern: `DELETE ${RC}/collaborator-id/:collaboratorId`,
    method: 'DELETE',
    path: (w) => `${recordPath(w)}/collaborators/collaborator-id/${w.recordMember}`,
    writes: true,
    expect: vaultOwner(200),
  },
  ...(['HEAD', 'PATCH', 'DELETE'] as const).map(
    (method): Route => ({
      name: `${method} a resumable upload`,
      pattern: `${method} ${R}/uploads/:uploadId`,
      method,
      path: (w) => `${recordPath(w)}/uploads/${w.uploadId}`,
      // an upload belongs to its creator: a permitted caller acts on one of its own
      prepare: async (w, c) => `${recordPath(w)}/uploads/${await openUpload(w, c)}`,
      send: (req) =>
        method === 'PATCH'
          ? req
              .set(TUS)
              .set('Upload-Offset', '0')
              .set('Content-Type', 'application/offset+octet-stream')
              .send(randomBytes(UPLOAD_LENGTH))
          : req.set(TUS),
      writes: method !== 'HEAD',
      expect: recordEditor(method === 'HEAD' ? 200 : 204),
    }),
  ),
  // the trash and retention (docs/records-api.md, Trash; Retention and legal holds)
  {
    name: 'list the vault trash',
    pattern: `GET ${V}/trash`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/trash`,
    writes: false,
    expect: vaultEditor(200),
  },
  {
    name: 'vault retention',
    pattern: `GET ${V}/retention`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/retention`,
    writes: false,
    expect: vaultViewer(200),
  },
  {
    name: 'record retention',
    pattern: `GET ${R}/retention`,
    method: 'GET',
    path: (w) => `${recordPath(w)}/retention`,
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'list the versions of a file',
    pattern: `GET ${R}/record-files/:name/versions`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/versions`,
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'download a version',
    pattern: `GET ${R}/record-files/:name/versions/version-id/:versionId`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/versions/version-id/${w.versionId}`,
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'restore a version',
    pattern: `POST ${R}/record-files/:name/versions/version-id/:versionId/restore`,
    method: 'POST',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/versions/version-id/${w.versionId}/restore`,
    writes: true,
    expect: recordEditor(201),
  },
  {
    name: 'pin a version',
    pattern: `PUT ${R}/record-files/:name/versions/version-id/:versionId`,
    method: 'PUT',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/versions/version-id/${w.versionId}`,
    send: (req) => req.send({ pinned: true }),
    writes: true,
    expect: recordEditor(200),
  },
  {
    name: 'storage usage',
    pattern: `GET ${V}/usage`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/usage`,
    writes: false,
    expect: vaultViewer(200),
  },
  {
    name: 'file retention',
    pattern: `GET ${R}/record-files/:name/retention`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/retention`,
    writes: false,
    expect: recordViewer(200),
  },
  // content search (docs/search.md)
  {
    name: 'file text',
    pattern: `GET ${R}/record-files/:name/text`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/text`,
    writes: false,
    expect: recordViewer(200),
  },
  {
    name: 'search settings',
    pattern: `GET ${V}/search-settings`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/search-settings`,
    writes: false,
    expect: vaultViewer(200),
  },
  {
    name: 'change search settings',
    pattern: `PUT ${V}/search-settings`,
    method: 'PUT',
    path: (w) => `${vaultPath(w)}/search-settings`,
    send: (req) => req.send({ contentIndexing: true, language: 'german' }),
    writes: true,
    expect: vaultOwner(200),
  },
  // leaving with your files (docs/encryption.md)
  {
    name: 'export the vault identity',
    pattern: `GET ${V}/encryption/identity`,
    method: 'GET',
    path: (w) => `${vaultPath(w)}/encryption/identity`,
    // the export's event (activity log, webhooks)
    writes: true,
    expect: vaultOwner(200),
  },
  {
    name: 'export a file as .age',
    pattern: `GET ${R}/record-files/:name/age`,
    method: 'GET',
    path: (w) => `${filesPath(w.vault, w.record)}/${w.fileName}/age`,
    // the export's event (activity log, webhooks)
    writes: true,
    expect: vaultOwner(200),
  },
];

let t: RecordsTestApp;
let dir: string;
const callers = {} as Record<Identity, Caller>;
let shared: World;
/** A member of every world that no identity is (the target of collaborator changes), and an account to share with. */
let bystander: Caller;
const NEWCOMER = 'newcomer@example.com';

/** Opens a resumable upload on the world's record as `c`; answers its id. */
async function openUpload(w: World, c: Caller): Promise<string> {
  const res = await t
    .http()
    .post(`/api/v1${recordPath(w)}/uploads`)
    .set('Authorization', `Bearer ${c.token}`)
    .set(TUS)
    .set('Upload-Length', String(UPLOAD_LENGTH))
    .set('Upload-Metadata', tusMeta(meta(`${randomUUID()}.pdf`)))
    .expect(201);
  return String(res.headers['location']).split('/').pop() as string;
}

/** A vault with two records, a file, an open upload and a second vault, every identity granted its role. */
async function buildWorld(): Promise<World> {
  const owner = callers.owner;
  const vault = await t.createVault(owner, { name: 'Matrix vault' });
  const destination = await t.createVault(owner, { name: 'Destination vault' });
  const record = await t.createRecord(owner, vault, { name: 'Shared record' });
  const otherRecord = await t.createRecord(owner, vault, { name: 'Unshared record' });
  const fileName = '260101120000_scan.pdf';
  await upload(t, owner, vault, record, { meta: meta(fileName) }).expect(201);
  for (const [who, role] of Object.entries(VAULT_GRANTS)) {
    await t.grantVaultRole(vault, callers[who as Identity], role);
    await t.grantVaultRole(destination, callers[who as Identity], role);
  }
  for (const [who, role] of Object.entries(RECORD_GRANTS)) await t.grantRecordRole(record, callers[who as Identity], role);
  await t.grantVaultRole(vault, bystander, 'vault_viewer');
  await t.grantRecordRole(record, bystander, 'rec_viewer');
  const memberId = async (table: string, key: string, id: string) =>
    (await t.sql<{ id: string }>(`SELECT id FROM ${table} WHERE ${key} = $1 AND open_id = $2`, [id, bystander.openId]))[0].id;
  const w: World = {
    vault,
    destination,
    record,
    otherRecord,
    fileName,
    versionId: (
      await t.sql<{ id: string }>(
        `SELECT v.id FROM file_versions v JOIN record_files f ON f.id = v.file_id
      WHERE f.record_id = $1`,
        [record],
      )
    )[0].id,
    uploadId: '',
    member: await memberId('vault_memberships', 'vault_id', vault),
    recordMember: await memberId('record_memberships', 'record_id', record),
  };
  w.uploadId = await openUpload(w, owner);
  return w;
}

/**
 * Every row of a world a call of these routes could change (other worlds are left out:
 * their background work, such as file purges, goes on meanwhile), and the
 * number of vaults, records and events of the tenant (a refused call creates none).
 */
async function snapshot(w: World = shared): Promise<string> {
  const vaults = [w.vault, w.destination];
  const records = `SELECT id FROM records WHERE vault_id = ANY($1)`;
  const queries: Record<string, string> = {
    vaults: 'SELECT * FROM vaults WHERE id = ANY($1)',
    vault_licenses: 'SELECT * FROM vault_licenses WHERE vault_id = ANY($1)',
    vault_memberships: 'SELECT * FROM vault_memberships WHERE vault_id = ANY($1)',
    records: 'SELECT * FROM records WHERE vault_id = ANY($1)',
    record_memberships: `SELECT * FROM record_memberships WHERE record_id IN (${records})`,
    record_files: `SELECT * FROM record_files WHERE record_id IN (${records})`,
    resumable_uploads: `SELECT * FROM resumable_uploads WHERE record_id IN (${records})`,
    file_versions: `SELECT * FROM file_versions WHERE file_id IN (SELECT id FROM record_files WHERE record_id IN (${records}))`,
    outbox_events: 'SELECT * FROM outbox_events WHERE vault_id = ANY($1)',
    search_settings: 'SELECT * FROM search_settings WHERE vault_id = ANY($1)',
    counts: `SELECT (SELECT count(*) FROM vaults) AS vaults, (SELECT count(*) FROM records) AS records,
      (SELECT count(*) FROM outbox_events WHERE $1::uuid[] IS NOT NULL) AS events`,
  };
  const out: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(queries)) out[name] = await t.sql(`${sql} ORDER BY 1`, [vaults]);
  return JSON.stringify(out);
}

function call(route: Route, c: Caller, path: string, w: World): Test {
  const req = t.http()[route.method.toLowerCase() as 'get'](`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`);
  return route.send ? route.send(req, w) : req;
}

describe('records-service role matrix', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'role-matrix-'));
    t = await RecordsTestApp.start('records_role_matrix', {
      VAULT_PLANS_FILE: writePlansFile({
        free: {
          'account.maxOwnedVaults': '1000',
          'vault.maxVaultGBs': '1',
          'ownedVaults.featureInviteVaultCollaborator': '1',
          'ownedVaults.featureInviteRecordCollaborator': '1',
          'ownedVaults.transferVaultOwnership': '1',
        },
      }),
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      // every fresh world opens an upload of the owner
      TUS_MAX_OPEN_UPLOADS: '1000',
    });
    for (const who of IDENTITIES) callers[who] = await t.caller(who === 'otherTenant' ? 'tenant-b' : 'tenant-a', who);
    bystander = await t.caller('tenant-a', 'bystander@example.com');
    // the account directory knows both (as user-service's account events would have told it)
    for (const [c, username] of [
      [bystander, bystander.username],
      [await t.caller('tenant-a', NEWCOMER), NEWCOMER],
    ] as const) {
      await t.sql(
        `INSERT INTO account_directory (tenant_id, open_id, account_id, username, first_name, last_name, active, version)
         VALUES ($1, $2, gen_random_uuid(), $3, 'Ned', 'New', true, 1)`,
        [c.tenantId, c.openId, username],
      );
    }
    shared = await buildWorld();
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('covers every route of the service that acts on a vault or record', () => {
    const declared = listRouteRules(t.app)
      .filter((r) => !r.route.includes('/health/') && r.rule !== 'public')
      .map((r) => r.route.replace(/\/$/, ''))
      .filter((r) => r.startsWith('GET /vault') || / \/vault/.test(r))
      // webhooks have a role spec of their own
      .filter((r) => !/\/webhooks(\/|$)/.test(r));
    expect([...new Set(ROUTES.map((r) => r.pattern))].sort()).toEqual([...new Set(declared)].sort());
  });

  const cases = ROUTES.flatMap((route) => IDENTITIES.map((who, i) => ({ route, who, status: route.expect[i] })));

  it.each(cases)('$route.name as $who: $status', async ({ route, who, status }) => {
    const c = callers[who];
    const refused = status >= 400;
    if (refused || !route.writes) {
      const before = await snapshot();
      const path = !refused && route.prepare ? await route.prepare(shared, c) : route.path(shared);
      const prepared = !refused && route.prepare ? await snapshot() : before;
      const res = await call(route, c, path, shared);
      expect([who, route.name, res.status]).toEqual([who, route.name, status]);
      if (refused && route.method !== 'HEAD') expect(res.body).toMatchObject({ status, code: REFUSAL_CODES[status] });
      expect(await snapshot()).toBe(prepared);
      return;
    }
    const w = await buildWorld();
    const path = route.prepare ? await route.prepare(w, c) : route.path(w);
    const before = await snapshot(w);
    const res = await call(route, c, path, w);
    expect([who, route.name, res.status]).toEqual([who, route.name, status]);
    // a permitted write changes something
    expect(await snapshot(w)).not.toBe(before);
  });
});
