import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { Client } from 'pg';
import { call, setupValue } from '../support/client';
import { eventually, sharedVault } from '../support/people';
import { uploadFile } from '../support/uploads';

const run = promisify(execFile);

/**
 * Leaving with your files (docs/encryption.md) through the gateway: the vault owner, and
 * nobody else, exports the vault's age identity and a file as a standard `.age` file, which
 * Debian's `age -d -i` decrypts to the uploaded bytes.
 */
describe('vault identity and .age export through the gateway', () => {
  let owner: string;
  let editor: string;
  let viewer: string;
  let stranger: string;
  let otherTenant: string;
  let officer: string;
  let vaultId: string;
  let files: string;
  const plain = randomBytes(3 * 65536 + 777);
  /** The identity the first test exported (one identity export in the log). */
  let identityText = '';

  beforeAll(async () => {
    ({ owner, editor, viewer, stranger, otherTenant, officer, vaultId } = await sharedVault(
      [
        ['kai', 'Kai'],
        ['ked', 'Ked'],
        ['kim', 'Kim'],
      ],
      'Export',
      'Export e2e',
    ));
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: owner,
      body: { name: 'Passport', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    expect(record.status).toBe(200);
    files = `/vault/vault-id/${vaultId}/records/record-id/${record.body.id}/record-files`;
    const up = await uploadFile(owner, files, 'scan.bin', plain, { contentType: 'application/octet-stream' });
    expect(up.status).toBe(201);
  });

  /** Debian's `age -d -i`, given the identity, opens the `.age` bytes as the uploaded file. */
  async function expectAgeDecrypts(identity: string, age: Buffer): Promise<void> {
    const home = mkdtempSync(join(tmpdir(), 'vault-export-e2e-'));
    try {
      writeFileSync(join(home, 'identity.txt'), identity);
      writeFileSync(join(home, 'scan.bin.age'), age);
      const { stdout } = await run('age', ['-d', '-i', join(home, 'identity.txt'), join(home, 'scan.bin.age')], {
        encoding: 'buffer',
        maxBuffer: 8 << 20,
      });
      expect(Buffer.compare(stdout, plain)).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  const identityPath = () => `/vault/vault-id/${vaultId}/encryption/identity`;
  const agePath = () => `${files}/scan.bin/age`;

  it('gives the owner the identity and the .age file, which the age CLI decrypts byte for byte', async () => {
    const identity = await call('records', 'GET', identityPath(), { token: owner });
    expect(identity.status).toBe(200);
    expect(identity.headers['cache-control']).toBe('no-store');
    expect(identity.headers['content-type']).toMatch(/^text\/plain/);
    expect(identity.text).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+\n$/);
    identityText = identity.text;

    const age = await call('records', 'GET', agePath(), { token: owner });
    expect(age.status).toBe(200);
    expect(age.headers['cache-control']).toBe('no-store');
    expect(age.headers['content-disposition']).toContain('scan.bin.age');
    const bytes = age.bytes as Buffer;
    expect(bytes.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    expect(bytes.includes(plain.subarray(1000, 1064))).toBe(false);

    await expectAgeDecrypts(identity.text, bytes);
  });

  it('sends the .age file in ranges under its ETag, which joined decrypt byte for byte, and 416 past its end', async () => {
    const whole = await call('records', 'GET', agePath(), { token: owner });
    expect(whole.status).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const etag = whole.headers.etag as string;
    expect(etag).toMatch(/^"age-[0-9a-f]{64}"$/);
    const age = whole.bytes as Buffer;
    const parts: Buffer[] = [];
    const last = age.length - 1;
    for (const [range, answered] of [
      ['bytes=0-99', `bytes 0-99/${age.length}`],
      ['bytes=100-65635', `bytes 100-65635/${age.length}`],
      ['bytes=65636-', `bytes 65636-${last}/${age.length}`],
    ]) {
      const res = await call('records', 'GET', agePath(), { token: owner, headers: { range, 'if-range': etag } });
      expect(res.status).toBe(206);
      expect(res.headers['content-range']).toBe(answered);
      parts.push(res.bytes as Buffer);
    }
    const joined = Buffer.concat(parts);
    expect(joined.equals(age)).toBe(true);
    await expectAgeDecrypts(identityText, joined);
    const past = await call('records', 'GET', agePath(), { token: owner, headers: { range: `bytes=${age.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${age.length}`);
    expect(past.body).toMatchObject({ status: 416, code: 'range_not_satisfiable', requestId: expect.any(String) });
  });

  it("records both exports in the vault's activity log with the owner as actor, for the vault's viewers to see", async () => {
    type Entry = {
      user: string;
      action: string;
      entity: string;
      fileName: string | null;
      recordName: string | null;
      message: string;
    };
    let entries: Entry[] = [];
    await eventually(async () => {
      const res = await call('records', 'GET', `/vault/vault-id/${vaultId}/log?eventType=Export&locale=en-US`, { token: viewer });
      expect(res.status).toBe(200);
      entries = res.body.data as Entry[];
      return entries.some((e) => e.entity === 'Vault') && entries.some((e) => e.entity === 'File');
    }, 30_000);
    const me = await call('records', 'GET', `/vault/vault-id/${vaultId}/log?entity=Vault&eventType=Export`, { token: owner });
    expect(me.status).toBe(200);
    const actor = entries[0].user;
    expect(actor).toMatch(/kai/);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user: actor, entity: 'Vault', action: 'exported the encryption key of', fileName: null }),
        expect.objectContaining({
          user: actor,
          entity: 'File',
          action: 'exported',
          fileName: 'scan.bin',
          recordName: 'Passport',
        }),
      ]),
    );
    expect(me.body.data).toEqual([expect.objectContaining({ user: actor, entity: 'Vault' })]);
    const file = entries.find((e) => e.entity === 'File');
    expect(file?.message).toContain('as an encrypted .age file');
  });

  it.each([
    ['an editor', () => editor, 403],
    ['a viewer', () => viewer, 403],
    ['the compliance officer (no vault role)', () => officer, 404],
    ['a stranger of the tenant', () => stranger, 404],
    ['a user of another tenant', () => otherTenant, 404],
  ])('refuses %s with a problem body naming the request', async (_who, token, status) => {
    for (const path of [identityPath(), agePath()]) {
      const res = await call('records', 'GET', path, { token: token() });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status, requestId: expect.any(String) });
      expect(res.text).not.toContain('AGE-SECRET-KEY');
    }
  });

  it('refuses a caller without a token with 401', async () => {
    for (const path of [identityPath(), agePath()]) {
      const res = await call('records', 'GET', path);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: 401, requestId: expect.any(String) });
    }
  });

  it("asks for a recent sign-in (RFC 9470) when the owner's token comes from an older one, and not for the .age file", async () => {
    // the owner signs in; their refresh token's family then dates from an hour ago
    const signIn = await call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
      body: { clientSecret: 'alpha-prod-secret', username: 'kai@alpha.example', password: 'kai-password-1' },
    });
    expect(signIn.status).toBe(200);
    const fresh = decodeJwt(signIn.body.access_token);
    expect(fresh.auth_time).toBe(fresh.iat);
    const url = new URL(setupValue('E2E_ADMIN_URL'));
    url.pathname = `/${JSON.parse(setupValue('E2E_DATABASES'))['developer-service']}`;
    const pg = new Client({ connectionString: url.toString() });
    await pg.connect();
    try {
      const aged = await pg.query(
        `UPDATE refresh_token_families f SET signed_in_at = signed_in_at - 3600, created_at = now() - interval '1 hour'
           FROM refresh_tokens t WHERE t.family_id = f.id AND t.token_hash = $1`,
        [createHash('sha256').update(signIn.body.refresh_token).digest()],
      );
      expect(aged.rowCount).toBe(1);
    } finally {
      await pg.end();
    }
    const refreshed = await call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/oauth/token', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: signIn.body.refresh_token,
        client_id: 'alpha-prod',
        client_secret: 'alpha-prod-secret',
      },
    });
    expect(refreshed.status).toBe(200);
    const claims = decodeJwt(refreshed.body.access_token);
    // a new token, but its sign-in is the family's: an hour old
    expect(claims.auth_time).toBe(Number(fresh.auth_time) - 3600);

    const refused = await call('records', 'GET', identityPath(), { token: refreshed.body.access_token });
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 401, code: 'reauthentication_required', requestId: expect.any(String) });
    expect(refused.headers['www-authenticate']).toMatch(
      /^Bearer realm="vault", error="insufficient_user_authentication", error_description="[^"]+", max_age=600$/,
    );
    expect(refused.text).not.toContain('AGE-SECRET-KEY');
    // the .age file is encrypted to the identity: the same token may fetch it
    expect((await call('records', 'GET', agePath(), { token: refreshed.body.access_token })).status).toBe(200);
    // signing in again is enough
    expect((await call('records', 'GET', identityPath(), { token: signIn.body.access_token })).status).toBe(200);
  });

  it('answers 404 for a file the record does not have', async () => {
    const res = await call('records', 'GET', `${files}/missing.bin/age`, { token: owner });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, requestId: expect.any(String) });
  });
});
