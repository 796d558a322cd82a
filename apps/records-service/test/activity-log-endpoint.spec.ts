import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { bootTestApp, TestDatabase, TestIdentityProvider, TestNatsServer } from '@vault/platform/testing';
import { SUBJECTS, type VaultEventBase } from '@vault/contracts';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { OutboxEventPublisher } from '../src/capabilities/events/outbox.publisher';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { createRecordsDatabase } from './records-database';
import { recordBody } from './support';

interface Caller {
  token: string;
  openId: string;
  username: string;
}

describe('GET /vault/vault-id/{vaultId}/log', () => {
  jest.setTimeout(60_000);
  let nats: TestNatsServer;
  let db: TestDatabase;
  let idp: TestIdentityProvider;
  let app: INestApplication;
  let ds: DataSource;
  let owner: Caller;
  let home: string;
  let work: string;
  let recordId: string;

  const caller = async (username: string, tid = 'tenant-a'): Promise<Caller> => {
    const openId = `vault|${randomUUID()}`;
    return { openId, username, token: await idp.token({ sub: openId, tid, username }) };
  };
  const http = () => request(app.getHttpServer());
  const send = (c: Caller, method: 'get' | 'post' | 'put' | 'delete', path: string, body?: object) =>
    http()[method](`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`).send(body);
  const log = (c: Caller, vaultId: string, query: Record<string, string | number> = {}) =>
    http().get(`/api/v1/vault/vault-id/${vaultId}/log`).query(query).set('Authorization', `Bearer ${c.token}`);
  const logged = async (vaultId: string) =>
    (await ds.query(`SELECT count(*)::int AS n FROM activity_log_entries WHERE vault_id = $1`, [vaultId]))[0].n;
  const unpublished = async () =>
    (await ds.query(`SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL`))[0].n;
  const settled = () =>
    waitFor(async () => (await unpublished()) === 0, 15_000, 'the outbox to be relayed').then(() =>
      waitFor(
        async () => {
          const [{ n }] = await ds.query(
            `SELECT count(*)::int AS n FROM outbox_events o WHERE NOT EXISTS
               (SELECT 1 FROM activity_log_entries e WHERE e.event_id = o.id)`,
          );
          return n === 0;
        },
        15_000,
        'every event to be logged',
      ),
    );
  const grant = (vaultId: string, c: Caller, role: string, tid = 'tenant-a') =>
    ds.query(`INSERT INTO vault_memberships (vault_id, open_id, tenant_id, role) VALUES ($1, $2, $3, $4)`, [
      vaultId,
      c.openId,
      tid,
      role,
    ]);

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('activity_log_api');
    idp = await TestIdentityProvider.start();
    app = await bootTestApp(AppModule, {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('api'),
      OUTBOX_RELAY_POLL_MS: '200',
      ACTIVITY_LOG_RELAY: 'inline',
      ACTIVITY_LOG_WRITER: 'inline',
      VAULT_PLANS_FILE: '',
      VAULT_BRANDING_FILE: '',
      ...idp.env(),
    });
    // As main.ts does: the service's JetStream consumers (hybrid app), the writer among them.
    await startJetStreamConsumers(app);
    ds = app.get(DataSource);
    owner = await caller('Olga <Admin>');
    home = (await send(owner, 'post', '/vault', { name: 'Home & Garden' }).expect(201)).body.id;
    work = (await send(owner, 'post', '/vault', { name: 'Work' }).expect(201)).body.id;
    recordId = (await send(owner, 'post', `/vault/vault-id/${home}/records`, recordBody({ name: 'Passport' })).expect(200)).body
      .id;
    await send(owner, 'put', `/vault/vault-id/${home}/records/record-id/${recordId}`, recordBody({ name: 'Passport 2' })).expect(
      200,
    );
    await send(owner, 'put', `/vault/vault-id/${home}/records/record-id/${recordId}/transfer`, {
      destinationVaultId: work,
    }).expect(200);
    await settled();
  });

  afterAll(async () => {
    await app?.close();
    await idp?.stop();
    await db?.drop();
    await nats?.dispose();
  });

  it('lists the vault activity newest first with every entry field', async () => {
    const res = await log(owner, home).expect(200);
    const names = 'Home &amp; Garden';
    const messages: string[] = res.body.data.map((e: { message: string }) => e.message);
    expect(messages.slice(0, 3)).toEqual([
      `<b>Olga &lt;Admin&gt;</b> transferred the record <b>Passport 2</b> to the vault <b>Work</b>`,
      `<b>Olga &lt;Admin&gt;</b> updated the record <b>Passport 2</b>`,
      `<b>Olga &lt;Admin&gt;</b> created the record <b>Passport</b>`,
    ]);
    // The vault and its licence are created in one transaction (same instant possible): any order.
    expect(messages.slice(3).sort()).toEqual([
      `<b>Olga &lt;Admin&gt;</b> created a license for the vault <b>${names}</b>`,
      `<b>Olga &lt;Admin&gt;</b> created the vault <b>${names}</b>`,
    ]);
    const [transfer] = res.body.data;
    expect(Object.keys(transfer).sort()).toEqual(
      [
        'action',
        'entity',
        'fileName',
        'id',
        'message',
        'rawTime',
        'recordId',
        'recordName',
        'time',
        'user',
        'vaultId',
        'vaultName',
      ].sort(),
    );
    expect(transfer).toMatchObject({
      user: 'Olga <Admin>',
      action: 'transferred',
      entity: 'Record',
      vaultId: home,
      vaultName: 'Home & Garden',
      recordId,
      recordName: 'Passport 2',
      fileName: null,
    });
    expect(new Date(transfer.rawTime).toISOString()).toBe(transfer.rawTime);
    expect(transfer.time).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} (AM|PM) UTC$/);
    expect(res.body.page).toEqual({
      totalItems: 5,
      currentPage: 1,
      pageSize: 20,
      totalPages: 1,
      startPage: 1,
      endPage: 1,
      startIndex: 0,
      endIndex: 4,
      pages: [1],
      nextCursor: null,
    });
  });

  it('logs the transfer in the destination vault too', async () => {
    const res = await log(owner, work, { entity: 'Record' }).expect(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      vaultId: work,
      vaultName: 'Work',
      message: `<b>Olga &lt;Admin&gt;</b> transferred the record <b>Passport 2</b> from the vault <b>Home &amp; Garden</b>`,
    });
  });

  it('renders message, action and time in Spanish for es-US', async () => {
    const res = await log(owner, home, { locale: 'es-US', entity: 'Vault' }).expect(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].message).toBe('<b>Olga &lt;Admin&gt;</b> creó la bóveda <b>Home &amp; Garden</b>');
    expect(res.body.data[0].action).toBe('creó');
    expect(res.body.data[0].time).toMatch(/^\d{1,2} [a-z]{3,4}\.? \d{4}, \d{2}:\d{2} ?(a|p)\.? ?m\.? UTC$/);
  });

  it('filters by entity, event type and sender', async () => {
    const records = await log(owner, home, { entity: 'Record' }).expect(200);
    expect(records.body.data.map((e: { entity: string }) => e.entity)).toEqual(['Record', 'Record', 'Record']);
    const creates = await log(owner, home, { eventType: 'Create' }).expect(200);
    expect(creates.body.page.totalItems).toBe(3);
    const license = await log(owner, home, { entity: 'License', eventType: 'Create' }).expect(200);
    expect(license.body.data).toHaveLength(1);
    expect((await log(owner, home, { senderOpenId: owner.openId }).expect(200)).body.page.totalItems).toBe(5);
    expect((await log(owner, home, { senderOpenId: 'vault|someone-else' }).expect(200)).body).toMatchObject({
      data: [],
      page: { totalItems: 0, totalPages: 1, pages: [1], startIndex: 0, endIndex: -1 },
    });
  });

  it('pages 1-based with the page window', async () => {
    const vault = (await send(owner, 'post', '/vault', { name: 'Busy' }).expect(201)).body.id;
    for (let i = 0; i < 23; i++) {
      await send(owner, 'post', `/vault/vault-id/${vault}/records`, recordBody({ name: `R${i}` })).expect(200);
    }
    await settled();
    expect(await logged(vault)).toBe(25);
    const res = await log(owner, vault, { page: 3, pageSize: 10 }).expect(200);
    expect(res.body.page).toEqual({
      totalItems: 25,
      currentPage: 3,
      pageSize: 10,
      totalPages: 3,
      startPage: 1,
      endPage: 3,
      startIndex: 20,
      endIndex: 24,
      pages: [1, 2, 3],
      nextCursor: null,
    });
    // Oldest five on the last page: R2, R1, R0, then the vault and its licence (same transaction).
    const labels = res.body.data.map((e: { recordName: string | null; entity: string }) => e.recordName ?? e.entity);
    expect(labels.slice(0, 3)).toEqual(['R2', 'R1', 'R0']);
    expect(labels.slice(3).sort()).toEqual(['License', 'Vault']);
    const first = await log(owner, vault, { pageSize: 2, page: 7 }).expect(200);
    expect(first.body.page).toMatchObject({ totalPages: 13, startPage: 2, endPage: 11, pages: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11] });
    const beyond = await log(owner, vault, { page: 9, pageSize: 10 }).expect(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.page).toMatchObject({ currentPage: 9, totalPages: 3, pages: [1, 2, 3] });
  });

  it('renders file events written to the outbox', async () => {
    const publisher = new OutboxEventPublisher();
    const file = (name: string) =>
      ({
        tenantId: 'tenant-a',
        actor: { openId: owner.openId, username: owner.username },
        vault: { id: work, name: 'Work' },
        occurredAt: new Date().toISOString(),
        record: { id: recordId, name: 'Passport 2' },
        recordTypeName: 'identityDocs',
        fileName: name,
        correlationId: randomUUID(),
        fileType: 'document',
        fileSize: 42,
      }) as unknown as VaultEventBase;
    await ds.transaction((m) => publisher.publish(m, SUBJECTS.fileUploaded, file('scan <1>.pdf')));
    await ds.transaction((m) => publisher.publish(m, SUBJECTS.fileDeleted, file('old.pdf')));
    await settled();
    const res = await log(owner, work, { entity: 'File', locale: 'es-US' }).expect(200);
    expect(res.body.data.map((e: { message: string }) => e.message)).toEqual([
      '<b>Olga &lt;Admin&gt;</b> eliminó el archivo <b>old.pdf</b> del registro <b>Passport 2</b>',
      '<b>Olga &lt;Admin&gt;</b> subió el archivo <b>scan &lt;1&gt;.pdf</b> al registro <b>Passport 2</b>',
    ]);
    expect(res.body.data[1]).toMatchObject({ entity: 'File', fileName: 'scan <1>.pdf', recordId, action: 'subió' });
    const uploads = await log(owner, work, { entity: 'File', eventType: 'Create' }).expect(200);
    expect(uploads.body.data.map((e: { action: string }) => e.action)).toEqual(['uploaded']);
  });

  it.each([
    [{ entity: 'Bogus' }, 'entity'],
    [{ eventType: 'Created' }, 'eventType'],
    [{ locale: 'fr-CA' }, 'locale'],
    [{ page: 0 }, 'page'],
    [{ page: 'two' }, 'page'],
    [{ pageSize: 101 }, 'pageSize'],
    [{ pageSize: 0 }, 'pageSize'],
    [{ colour: 'red' }, 'colour'],
  ])('answers 400 for %j', async (query, field) => {
    const res = await log(owner, home, query as Record<string, string>).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('describes the endpoint and its query in the OpenAPI document', async () => {
    const doc = (await http().get('/api/v1/openapi.json').expect(200)).body;
    const op = doc.paths['/vault/vault-id/{vaultId}/log'].get;
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['cursor', 'entity', 'eventType', 'locale', 'page', 'pageSize', 'senderOpenId', 'vaultId'].sort(),
    );
    expect(JSON.stringify(op.responses['200'])).toContain('ActivityLogPageDto');
  });

  it('lets vault viewers and up read, hides the vault from strangers and other tenants', async () => {
    const viewer = await caller('vera');
    await grant(home, viewer, 'vault_viewer');
    expect((await log(viewer, home).expect(200)).body.page.totalItems).toBe(5);
    const editor = await caller('ed');
    await grant(home, editor, 'vault_editor');
    await log(editor, home).expect(200);
    const info = await caller('ivo');
    await grant(home, info, 'vault_info');
    await log(info, home).expect(403);
    const stranger = await caller('sam');
    await log(stranger, home).expect(404);
    const foreign = await caller('olga', 'tenant-b');
    await log(foreign, home).expect(404);
    await log(owner, randomUUID()).expect(404);
    await http().get(`/api/v1/vault/vault-id/${home}/log`).expect(401);
  });
});
