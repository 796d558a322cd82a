import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { Client } from 'pg';
import request from 'supertest';
import { startServiceProcess } from '@vault/platform/testing';
import { auth, createAccount, fullAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';
const KEY = 'Idempotency-Key';
const REPLAYED = 'idempotency-replayed';

describe('user-service Idempotency-Key', () => {
  jest.setTimeout(120_000);
  let svc: UserService;
  let pg: Client;

  beforeAll(async () => {
    svc = await startUserService('user_idempotency');
    pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await svc?.stop();
  });

  const count = async (sql: string, params: unknown[]) => Number((await pg.query(sql, params)).rows[0].n);
  const mails = () => (existsSync(svc.mailDir) ? readdirSync(svc.mailDir).length : 0);
  async function account() {
    const token = await svc.token();
    const id = await createAccount(svc, token);
    return { token, id };
  }
  const post = (token: string, path: string, key: string, body: object) =>
    svc.http().post(`${A}${path}`).set(auth(token)).set(KEY, key).send(body);

  /** The first request answers, the retry replays it exactly, and `created()` counted one change. */
  async function runsOnce(token: string, path: string, body: object, created: () => Promise<number>, status: number) {
    const key = randomUUID();
    const before = await created();
    const first = await post(token, path, key, body).expect(status);
    expect(first.headers[REPLAYED]).toBeUndefined();
    const again = await post(token, path, key, body).expect(status);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.text).toBe(first.text);
    expect(await created()).toBe(before + 1);
    const reused = await post(token, path, key, { ...body, extra: 1 }).expect(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await created()).toBe(before + 1);
    return first;
  }

  it('POST /accounts runs once per key and replays its 200', async () => {
    const token = await svc.token();
    const body = fullAccount();
    const first = await runsOnce(
      token,
      '',
      body,
      () => count(`SELECT count(*) AS n FROM accounts WHERE username = $1`, [body['username']]),
      200,
    );
    expect(first.body.id).toEqual(expect.any(String));
  });

  it('POST /accounts/invitations runs once: one invitation, one mail', async () => {
    const { token } = await account();
    const email = `friend.${randomUUID()}@example.com`;
    const mailsBefore = mails();
    await runsOnce(
      token,
      '/invitations',
      { email },
      () => count(`SELECT count(*) AS n FROM invitations WHERE email = $1`, [email]),
      201,
    );
    expect(mails()).toBe(mailsBefore + 1);
  });

  it('POST …/agreements runs once', async () => {
    const { token, id } = await account();
    const body = { locale: 'en-CA', type: 'tos', version: 2, consent: true };
    await runsOnce(
      token,
      `/account-id/${id}/agreements`,
      body,
      () => count(`SELECT count(*) AS n FROM agreements WHERE account_id = $1`, [id]),
      200,
    );
  });

  it('POST …/email and …/phone run once', async () => {
    const { token, id } = await account();
    const entries = (column: string) => async () =>
      count(`SELECT jsonb_array_length(${column}) AS n FROM accounts WHERE id = $1`, [id]);
    await runsOnce(token, `/account-id/${id}/email`, { address: `second.${randomUUID()}@example.com` }, entries('emails'), 201);
    await runsOnce(
      token,
      `/account-id/${id}/phone`,
      { number: 6135550199, ext: 2, mobile: true, primary: false, verified: false },
      entries('phones'),
      201,
    );
  });

  it('POST …/mfa runs once: one code, one mail, and the retry is not throttled', async () => {
    const { token, id } = await account();
    const mailsBefore = mails();
    await runsOnce(
      token,
      `/account-id/${id}/mfa`,
      { type: 'email', notificationType: 'mfaEmail' },
      () => count(`SELECT count(*) AS n FROM mfa_codes WHERE account_id = $1`, [id]),
      201,
    );
    expect(mails()).toBe(mailsBefore + 1);
    // without the key a second send is a new request: throttled
    await svc
      .http()
      .post(`${A}/account-id/${id}/mfa`)
      .set(auth(token))
      .send({ type: 'email', notificationType: 'mfaEmail' })
      .expect(429);
  });

  it('a repeat while the first still runs is 409 idempotency_key_in_flight', async () => {
    const { token, id } = await account();
    const key = randomUUID();
    const body = { address: `held.${randomUUID()}@example.com` };
    const holder = new Client({ connectionString: svc.db.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    const first = post(token, `/account-id/${id}/email`, key, body).then((r) => r);
    try {
      for (let i = 0; i < 200 && (await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])) === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      const second = await post(token, `/account-id/${id}/email`, key, body).expect(409);
      expect(second.body.code).toBe('idempotency_key_in_flight');
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    expect((await first).status).toBe(201);
    const replay = await post(token, `/account-id/${id}/email`, key, body).expect(201);
    expect(replay.headers[REPLAYED]).toBe('true');
  });

  it('a key of another caller does not replay', async () => {
    const a = await account();
    const b = await account();
    const key = randomUUID();
    const body = { locale: 'en-CA', type: 'tos', version: 3, consent: true };
    const first = await post(a.token, `/account-id/${a.id}/agreements`, key, body).expect(200);
    // same key, same body, other caller and account: a new agreement of its own
    const other = await post(b.token, `/account-id/${b.id}/agreements`, key, body).expect(200);
    expect(other.headers[REPLAYED]).toBeUndefined();
    expect(other.body.id).not.toBe(first.body.id);
    // and the other caller cannot read the first caller's answer through the key
    const probe = await post(b.token, `/account-id/${a.id}/agreements`, key, body).expect(422);
    expect(probe.body.code).toBe('idempotency_key_reused');
  });

  it('a refusal that may succeed later (429, 5xx) is not stored: the key is released', async () => {
    const { token, id } = await account();
    const body = { type: 'email', notificationType: 'mfaEmail' };
    await svc.http().post(`${A}/account-id/${id}/mfa`).set(auth(token)).send(body).expect(201);
    const key = randomUUID();
    await post(token, `/account-id/${id}/mfa`, key, body).expect(429);
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(0);
  });

  describe('a crash after the commit, before the answer', () => {
    const children: ChildProcess[] = [];
    afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

    /** The real service as its own node process on a free port. */
    async function spawnService(extra: Record<string, string>) {
      const started = await startServiceProcess('user-service', { ...svc.env, ...extra });
      children.push(started.child);
      return started;
    }

    it('the process is killed right after committing POST /accounts; the retry replays, nothing runs twice', async () => {
      const token = await svc.token();
      const body = fullAccount();
      const key = randomUUID();
      const dying = await spawnService({ VAULT_TEST_KILL_AFTER_IDEMPOTENT_COMMIT: 'true' });
      const exited = new Promise((r) => dying.child.once('exit', (_code, signal) => r(signal)));
      await expect(request(dying.base).post(`${A}`).set(auth(token)).set(KEY, key).send(body)).rejects.toThrow();
      expect(await exited).toBe('SIGKILL');
      // committed together: the account and its key's answer
      const stored = (await pg.query(`SELECT state, status, body FROM idempotency_keys WHERE key = $1`, [key])).rows;
      expect(stored).toEqual([{ state: 'completed', status: 200, body: expect.any(String) }]);
      const accountId = JSON.parse(stored[0].body).id as string;
      expect(await count(`SELECT count(*) AS n FROM accounts WHERE id = $1`, [accountId])).toBe(1);

      const restarted = await spawnService({});
      const retry = await request(restarted.base).post(`${A}`).set(auth(token)).set(KEY, key).send(body).expect(200);
      expect(retry.headers[REPLAYED]).toBe('true');
      expect(retry.body).toEqual({ id: accountId });
      expect(await count(`SELECT count(*) AS n FROM accounts WHERE username = $1`, [body['username']])).toBe(1);
      restarted.child.kill('SIGTERM');
    });
  });
});
