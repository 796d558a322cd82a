import { ann, bob, call } from '../support/client';

interface LogPage {
  data: Array<{ action: string; entity: string; recordName: string | null; vaultId: string; message: string }>;
  page: { totalItems: number; currentPage: number; pageSize: number };
}

async function logOf(token: string, vaultId: string, query = ''): Promise<LogPage> {
  const res = await call('records', 'GET', `/vault/vault-id/${vaultId}/log${query}`, { token });
  if (res.status !== 200) throw new Error(`log answered ${res.status}: ${res.text}`);
  return res.body as LogPage;
}

/** Waits until the asynchronous pipeline (outbox → JetStream → writer) shows `count` entries. */
async function waitForEntries(token: string, vaultId: string, count: number, query = ''): Promise<LogPage> {
  const deadline = Date.now() + 15000;
  for (;;) {
    const page = await logOf(token, vaultId, query);
    if (page.page.totalItems >= count || Date.now() > deadline) return page;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('vault activity log through the gateway', () => {
  let owner: string;
  let vaultId: string;

  beforeAll(async () => {
    owner = await ann();
    const vault = await call('records', 'POST', '/vault', { token: owner, body: { name: 'Logged vault' } });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: owner,
      body: { name: 'Car title', description: '', recordTypeName: 'transportation', recordSubtypeName: 'licensePlates' },
    });
    expect(record.status).toBe(200);
    await call('records', 'PUT', `/vault/vault-id/${vaultId}`, { token: owner, body: { name: 'Logged vault (renamed)' } });
  });

  it('lists the vault, licence and record changes newest first', async () => {
    const page = await waitForEntries(owner, vaultId, 4);
    expect(page.page.totalItems).toBe(4);
    expect(page.data.map((e) => e.entity)).toEqual(['Vault', 'Record', expect.any(String), expect.any(String)]);
    expect(page.data.map((e) => e.entity).sort()).toEqual(['License', 'Record', 'Vault', 'Vault']);
    expect(page.data.find((e) => e.entity === 'Record')?.recordName).toBe('Car title');
  });

  it('filters by entity and event type and pages', async () => {
    const records = await logOf(owner, vaultId, '?entity=Record&eventType=Create');
    expect(records.data).toHaveLength(1);
    const paged = await logOf(owner, vaultId, '?page=2&pageSize=3');
    expect(paged.page).toMatchObject({ currentPage: 2, pageSize: 3, totalItems: 4 });
    expect(paged.data).toHaveLength(1);
    const bad = await call('records', 'GET', `/vault/vault-id/${vaultId}/log?eventType=Explode`, { token: owner });
    expect(bad.status).toBe(400);
  });

  it('renders messages in Spanish on request', async () => {
    const es = await logOf(owner, vaultId, '?locale=es-US&entity=Record');
    const en = await logOf(owner, vaultId, '?locale=en-US&entity=Record');
    expect(es.data[0].message).not.toBe(en.data[0].message);
  });

  it('hides the log from a caller without a role on the vault', async () => {
    const res = await call('records', 'GET', `/vault/vault-id/${vaultId}/log`, { token: await bob() });
    expect(res.status).toBe(404);
  });
});
