import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { Client } from 'pg';
import { call, hostOf, Reply, setupValue, tokenFor } from '../support/client';

const KEY = 'idempotency-key';

/** Resolves once the records module holds `key` in flight (the first request is inside its handler). */
async function inFlightInRecords(key: string): Promise<void> {
  const url = new URL(setupValue('E2E_ADMIN_URL'));
  url.pathname = `/${JSON.parse(setupValue('E2E_DATABASES'))['records-service']}`;
  const pg = new Client({ connectionString: url.toString() });
  await pg.connect();
  try {
    for (let i = 0; i < 400; i++) {
      const { rows } = await pg.query(`SELECT 1 FROM idempotency_keys WHERE key = $1 AND state = 'in_flight'`, [key]);
      if (rows.length > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`key ${key} never went in flight`);
  } finally {
    await pg.end();
  }
}

/**
 * A POST to the records module through the gateway whose body is sent in two parts: the
 * first at once, the rest when `finish()` is called. Resolves `answer` with the reply.
 */
function heldUpload(path: string, headers: Record<string, string>, first: Buffer, rest: Buffer) {
  const port = Number(setupValue('E2E_GATEWAY_PORT'));
  let finish!: () => void;
  const answer = new Promise<Reply>((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/v1${path}`,
        rejectUnauthorized: false,
        headers: { ...headers, host: `${hostOf('records')}:${port}`, 'content-length': String(first.length + rest.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text,
          });
        });
      },
    );
    req.on('error', reject);
    req.write(first);
    finish = () => req.end(rest);
  });
  return { answer, finish: () => finish() };
}

/** Sends the same creating POST `n` times at once under one key. */
const burst = (n: number, send: () => Promise<Reply>) => Promise.all(Array.from({ length: n }, send));

/**
 * Idempotency-Key through the gateway (docs/retries-and-concurrency.md): one creating
 * route per module, replay, reuse with another body, and concurrent repeats.
 */
describe('Idempotency-Key through the gateway', () => {
  let owner: string;
  let other: string;
  let vaultId: string;

  beforeAll(async () => {
    [owner, other] = await Promise.all([
      tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'ida@alpha.example', 'ida-password-1'),
      tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'ivo@alpha.example', 'ivo-password-1'),
    ]);
    const vault = await call('records', 'POST', '/vault', { token: owner, body: { name: 'Idempotent papers' } });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
  });

  const records = async () => {
    const res = await call('records', 'GET', `/vault/vault-id/${vaultId}/records`, { token: owner });
    expect(res.status).toBe(200);
    return (Array.isArray(res.body) ? res.body : res.body.data) as Array<{ name: string }>;
  };
  const recordBody = (name: string) => ({
    name,
    description: 'Blue cover',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
    uniqueReference: '20260101120000',
    storageLocation: 'Desk drawer',
    editable: true,
    recordDetails: { number: 'X123', country: 'CA' },
  });

  it('records: a retried record creation replays its answer and creates one record; another body is 422', async () => {
    const key = randomUUID();
    const name = `Passport ${key}`;
    const send = (body: object) =>
      call('records', 'POST', `/vault/vault-id/${vaultId}/records`, { token: owner, body, headers: { [KEY]: key } });
    const first = await send(recordBody(name));
    expect(first.status).toBe(200);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const again = await send(recordBody(name));
    expect(again.status).toBe(200);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await records()).filter((r) => r.name === name)).toHaveLength(1);

    const reused = await send(recordBody(`${name} (other)`));
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(reused.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('records: concurrent repeats create one vault; the others are replays or 409 idempotency_key_in_flight', async () => {
    const key = randomUUID();
    const name = `Burst ${key}`;
    const answers = await burst(6, () =>
      call('records', 'POST', '/vault', { token: other, body: { name }, headers: { [KEY]: key } }),
    );
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(answers.length);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    expect(created.filter((a) => a.headers['idempotency-replayed'] === undefined)).toHaveLength(1);
    for (const b of busy) expect(b.body.code).toBe('idempotency_key_in_flight');
    const settled = await call('records', 'POST', '/vault', { token: other, body: { name }, headers: { [KEY]: key } });
    expect(settled.status).toBe(201);
    expect(settled.headers['idempotency-replayed']).toBe('true');
    expect(settled.body.id).toBe(created[0].body.id);
  });

  it('records: a repeat while the first upload still streams through the gateway is 409 idempotency_key_in_flight; then it replays', async () => {
    const key = randomUUID();
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: owner,
      body: recordBody(`Upload ${key}`),
    });
    expect(record.status).toBe(200);
    const fileName = `slow-${key}.txt`;
    const query = new URLSearchParams({ fileName, correlationId: '260101120000', fileType: 'document' });
    const path = `/vault/vault-id/${vaultId}/records/record-id/${record.body.id}/record-files?${query}`;
    const boundary = 'e2e-held-upload-boundary';
    const content = randomBytes(64 * 1024).toString('hex');
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
    );
    const headers = { authorization: `Bearer ${owner}`, 'content-type': `multipart/form-data; boundary=${boundary}`, [KEY]: key };
    // the first request's body stops half way: its handler is streaming it, the key in flight
    const held = heldUpload(path, headers, body.subarray(0, body.length / 2), body.subarray(body.length / 2));
    let second: Reply;
    try {
      await inFlightInRecords(key);
      second = await call('records', 'POST', path, { token: owner, raw: body, headers });
    } finally {
      held.finish();
    }
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('idempotency_key_in_flight');
    expect(second.headers['retry-after']).toBe('1');
    const first = await held.answer;
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ fileName, fileSize: content.length });

    const retry = await call('records', 'POST', path, { token: owner, raw: body, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    const listed = await call('records', 'GET', `/vault/vault-id/${vaultId}/records/record-id/${record.body.id}/record-files`, {
      token: owner,
    });
    expect(listed.status).toBe(200);
    const names = (listed.body as Array<{ files: Array<{ fileName: string }> }>).flatMap((g) => g.files.map((f) => f.fileName));
    expect(names.filter((n) => n === fileName)).toHaveLength(1);
  });

  it('user: a retried email addition replays and adds one address; another body is 422; concurrent repeats add one', async () => {
    let account = await call('user', 'GET', '/accounts/username/ivo%40alpha.example', { token: other });
    if (account.status === 404) {
      expect(
        (await call('user', 'POST', '/accounts', { token: other, body: { firstName: 'Ivo', lastName: 'Idem' } })).status,
      ).toBe(200);
      account = await call('user', 'GET', '/accounts/username/ivo%40alpha.example', { token: other });
    }
    expect(account.status).toBe(200);
    const id = account.body.id as string;
    const emails = async () =>
      (await call('user', 'GET', `/accounts/account-id/${id}`, { token: other })).body.emails as Array<{ address: string }>;
    const key = randomUUID();
    const address = `retry.${key.slice(0, 8)}@alpha.example`;
    const send = (body: object) =>
      call('user', 'POST', `/accounts/account-id/${id}/email`, { token: other, body, headers: { [KEY]: key } });
    const first = await send({ address });
    expect(first.status).toBe(201);
    const again = await send({ address });
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await emails()).filter((e) => e.address === address)).toHaveLength(1);
    const reused = await send({ address: `other.${address}` });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');

    const burstKey = randomUUID();
    const burstAddress = `burst.${burstKey.slice(0, 8)}@alpha.example`;
    const answers = await burst(6, () =>
      call('user', 'POST', `/accounts/account-id/${id}/email`, {
        token: other,
        body: { address: burstAddress },
        headers: { [KEY]: burstKey },
      }),
    );
    expect(answers.every((a) => a.status === 201 || (a.status === 409 && a.body.code === 'idempotency_key_in_flight'))).toBe(
      true,
    );
    expect(answers.filter((a) => a.status === 201 && a.headers['idempotency-replayed'] === undefined)).toHaveLength(1);
    expect((await emails()).filter((e) => e.address === burstAddress)).toHaveLength(1);
  });

  it('a key of another caller does not replay, and a malformed key is a 400', async () => {
    const key = randomUUID();
    const a = await call('records', 'POST', '/vault', { token: owner, body: { name: `Mine ${key}` }, headers: { [KEY]: key } });
    const b = await call('records', 'POST', '/vault', { token: other, body: { name: `Mine ${key}` }, headers: { [KEY]: key } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotency-replayed']).toBeUndefined();
    expect(b.body.id).not.toBe(a.body.id);
    const bad = await call('records', 'POST', '/vault', {
      token: owner,
      body: { name: 'x' },
      headers: { [KEY]: 'k'.repeat(256) },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
  });
});
