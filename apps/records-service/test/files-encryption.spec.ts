import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import request from 'supertest';
import { CHUNK, SEALED_CHUNK, sealedSize } from '../src/capabilities/encryption/age-stream';
import { KeyServiceUnavailableError, KeyUnwrapError } from '../src/capabilities/encryption/encryption.errors';
import { KeyEncryptionKeys } from '../src/capabilities/encryption/key-encryption-keys';
import { metricsRegistry } from '@vault/platform/observability';
import { VaultKeysService } from '../src/capabilities/encryption/vault-keys.service';
import { ItemPurger } from '../src/capabilities/retention/item-purger';
import { Transactions } from '@vault/platform/persistence';
import { BlobEncryptionJob } from '../src/capabilities/storage/blob-encryption.job';
import { FsFileStorage } from '../src/capabilities/storage/fs-file-storage';
import { binary, filesBelow, filesPath, meta, sha256, upload } from './files-support';
import { Caller, RecordsTestApp } from './support';

const run = promisify(execFile);

interface BlobRow {
  id: string;
  storage_key: string;
  envelope: Buffer | null;
  envelope_vault_id: string | null;
  vault_id: string;
}

describe('record files encrypted at rest', () => {
  let t: RecordsTestApp;
  let dir: string;
  let storage: FsFileStorage;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'encrypted-files-'));
    storage = new FsFileStorage(dir);
    t = await RecordsTestApp.start('records_encrypted_files', {
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      ENCRYPTION_KEYRING: `kek1:${randomBytes(32).toString('base64')}`,
      ENCRYPTION_JOB_INTERVAL_MS: '0',
    });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'erin');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const blobOf = async (fileName: string) =>
    (
      await t.sql<BlobRow>(
        `SELECT b.* FROM blobs b JOIN record_files f ON f.storage_key = b.storage_key
         WHERE f.record_id = $1 AND f.file_name = $2`,
        [recordId, fileName],
      )
    )[0];
  const download = (name: string, range?: string, v = vaultId, r = recordId) => {
    const req = t.get(owner, `${filesPath(v, r)}/${name}`);
    return binary(range ? req.set('Range', range) : req);
  };

  /** Debian's `age -d`, given the vault's exported identity, opens envelope + object as `plain`. */
  async function expectAgeDecrypts(blob: BlobRow, object: Buffer, plain: Buffer): Promise<void> {
    await expectAgeFileDecrypts(Buffer.concat([blob.envelope as Buffer, object]), plain);
  }

  /** Debian's `age -d`, given the exported identity of vault `v`, opens the `.age` file `age` as `plain`. */
  async function expectAgeFileDecrypts(age: Buffer, plain: Buffer, v = vaultId): Promise<void> {
    const home = mkdtempSync(join(tmpdir(), 'vault-export-'));
    try {
      writeFileSync(join(home, 'file.age'), age);
      writeFileSync(join(home, 'key.txt'), `${await t.app.get(VaultKeysService).exportIdentity(v)}\n`);
      const { stdout } = await run('age', ['-d', '-i', join(home, 'key.txt'), join(home, 'file.age')], {
        encoding: 'buffer',
        maxBuffer: 8 << 20,
      });
      expect(stdout.equals(plain)).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  async function uploaded(name: string, bytes: Buffer): Promise<BlobRow> {
    await upload(t, owner, vaultId, recordId, { meta: meta(name), bytes }).expect(201);
    return blobOf(name);
  }

  it('stores only ciphertext that the age CLI decrypts with the vault identity, and serves the plaintext', async () => {
    const plain = randomBytes(3 * CHUNK + 1000);
    const blob = await uploaded('scan.pdf', plain);
    expect(blob.envelope_vault_id).toBe(vaultId);
    const object = readFileSync(storage.objectPath(blob.storage_key));
    expect(object.length).toBe(sealedSize(plain.length));
    expect(object.includes(plain.subarray(5000, 5064))).toBe(false);

    await expectAgeDecrypts(blob, object, plain);

    const whole = await download('scan.pdf').expect(200);
    expect(whole.headers.etag).toBe(`"${sha256(plain)}"`);
    expect(whole.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(sha256(plain), 'hex').toString('base64')}:`);
    expect((whole.body as Buffer).equals(plain)).toBe(true);
    const part = await download('scan.pdf', `bytes=${CHUNK - 10}-${2 * CHUNK + 10}`).expect(206);
    expect((part.body as Buffer).equals(plain.subarray(CHUNK - 10, 2 * CHUNK + 11))).toBe(true);
    expect(part.headers['content-range']).toBe(`bytes ${CHUNK - 10}-${2 * CHUNK + 10}/${plain.length}`);
  });

  it('refuses a damaged object with 409 file_damaged, still serving ranges that avoid the damage', async () => {
    const plain = randomBytes(3 * CHUNK);
    const blob = await uploaded('damaged.pdf', plain);
    const path = storage.objectPath(blob.storage_key);
    const object = readFileSync(path);
    object[2 * SEALED_CHUNK + 7] ^= 1;
    writeFileSync(path, object);
    const fine = await download('damaged.pdf', 'bytes=0-99').expect(206);
    expect((fine.body as Buffer).equals(plain.subarray(0, 100))).toBe(true);
    const res = await t.get(owner, `${filesPath(vaultId, recordId)}/damaged.pdf`).set('Range', `bytes=${2 * CHUNK}-`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('file_damaged');
    expect(res.headers['content-type']).toMatch(/problem\+json/);

    const rejected = await metricsRegistry.getSingleMetricAsString('vault_encrypted_objects_rejected_total');
    expect(rejected).toMatch(/vault_encrypted_objects_rejected_total\{kind="chunk"\} [1-9]/);
    await t.sql(`UPDATE blobs SET envelope = overlay(envelope placing '\\x00'::bytea from 30) WHERE id = $1`, [blob.id]);
    expect((await t.get(owner, `${filesPath(vaultId, recordId)}/damaged.pdf`)).body.code).toBe('file_damaged');
  });

  describe('resumable (tus) uploads, sealed as their bytes arrive', () => {
    const tus = (req: import('supertest').Test) =>
      req.set('Tus-Resumable', '1.0.0').set('Authorization', `Bearer ${owner.token}`);
    const metadataOf = (m: Record<string, string>) =>
      Object.entries(m)
        .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
        .join(',');
    const begin = async (name: string, length: number) => {
      const res = await tus(t.http().post(`/api/v1/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads`))
        .set('Upload-Length', String(length))
        .set('Upload-Metadata', metadataOf(meta(name)))
        .expect(201);
      return `/api/v1/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads/${String(res.headers.location).split('/').pop()}`;
    };
    const patch = (path: string, offset: number, body: Buffer, extra: Record<string, string> = {}) =>
      tus(t.http().patch(path))
        .set('Upload-Offset', String(offset))
        .set('Content-Type', 'application/offset+octet-stream')
        .set(extra)
        .send(body);
    /** Every byte the store holds for uploads now (partial files and objects). */
    const everythingStored = () => Buffer.concat(filesBelow(dir).map((f) => readFileSync(f)));
    const windows = (plain: Buffer) =>
      [0, 1, CHUNK - 8, CHUNK, 2 * CHUNK + 3, plain.length - 40].map((o) => plain.subarray(o, o + 32));

    it('keeps no plaintext byte at rest between chunks, and commits an object the age CLI decrypts', async () => {
      const plain = randomBytes(3 * CHUNK + 1234);
      const path = await begin('tus.pdf', plain.length);
      // chunk ends off the 64 KiB grid: every request leaves an unsealed tail behind
      const cuts = [0, 1000, CHUNK + 7, CHUNK + 8, 3 * CHUNK + 1, plain.length];
      for (let i = 0; i + 1 < cuts.length; i++) {
        await patch(path, cuts[i], plain.subarray(cuts[i], cuts[i + 1])).expect(204);
        if (i + 2 === cuts.length) break;
        const stored = everythingStored();
        for (const w of windows(plain)) expect(stored.includes(w)).toBe(false);
        const [row] = await t.sql<{ store_state: { sealed?: { tail?: string } } }>(
          `SELECT store_state FROM resumable_uploads WHERE record_id = $1`,
          [recordId],
        );
        const tail = Buffer.from(row.store_state.sealed?.tail ?? '', 'base64');
        for (const w of windows(plain)) expect(tail.includes(w.subarray(0, 16))).toBe(false);
      }
      const blob = await blobOf('tus.pdf');
      expect(blob.envelope_vault_id).toBe(vaultId);
      const object = readFileSync(storage.objectPath(blob.storage_key));
      expect(object.length).toBe(sealedSize(plain.length));
      for (const w of windows(plain)) expect(everythingStored().includes(w)).toBe(false);
      await expectAgeDecrypts(blob, object, plain);
      const whole = await download('tus.pdf').expect(200);
      expect(whole.headers.etag).toBe(`"${sha256(plain)}"`);
      expect((whole.body as Buffer).equals(plain)).toBe(true);
      const part = await download('tus.pdf', `bytes=${CHUNK - 3}-${CHUNK + 3}`).expect(206);
      expect((part.body as Buffer).equals(plain.subarray(CHUNK - 3, CHUNK + 4))).toBe(true);
      expect((await t.app.get(BlobEncryptionJob).pass()).encrypted).toBe(0);
    });

    it('rewraps what a transferred record takes along in the transfer itself, its open upload at commit', async () => {
      const plain = randomBytes(2 * CHUNK + 9);
      const blob = await uploaded('passport.pdf', plain);
      const object = readFileSync(storage.objectPath(blob.storage_key));
      const open = randomBytes(CHUNK + 50);
      const path = await begin('open.pdf', open.length);
      await patch(path, 0, open.subarray(0, 70)).expect(204);
      const target = await t.createVault(owner);
      const transfer = () =>
        t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, { destinationVaultId: target });

      // the key service out: the move is refused as a whole, nothing moved
      const kms = t.app.get(KeyEncryptionKeys);
      t.app.get(VaultKeysService).forget(vaultId);
      const unwrap = jest.spyOn(kms, 'unwrap').mockRejectedValue(new KeyServiceUnavailableError('token unreachable'));
      try {
        const refused = await transfer().expect(503);
        expect(refused.headers['retry-after']).toBe('5');
        expect(refused.body).toMatchObject({ code: 'service_unavailable', requestId: expect.any(String) });
      } finally {
        unwrap.mockRestore();
      }
      expect(await blobOf('passport.pdf')).toMatchObject({ vault_id: vaultId, envelope_vault_id: vaultId });

      await transfer().expect(200);
      const moved = await blobOf('passport.pdf');
      expect([moved.vault_id, moved.envelope_vault_id]).toEqual([target, target]);
      const [before, after] = [blob.envelope as Buffer, moved.envelope as Buffer];
      expect(after.equals(before)).toBe(false);
      // same file key and payload nonce: the stored object is the same bytes
      expect(after.subarray(-16).equals(before.subarray(-16))).toBe(true);
      expect(readFileSync(storage.objectPath(blob.storage_key)).equals(object)).toBe(true);

      const moving = path.replace(vaultId, target);
      await patch(moving, 70, open.subarray(70)).expect(204);
      expect(await blobOf('open.pdf')).toMatchObject({ vault_id: target, envelope_vault_id: target });

      // no read needs the old vault's key any more, before any background pass
      await t.app.get(VaultKeysService).destroy(vaultId);
      expect(((await download('passport.pdf', undefined, target).expect(200)).body as Buffer).equals(plain)).toBe(true);
      const part = await download('passport.pdf', `bytes=${CHUNK}-${CHUNK + 99}`, target).expect(206);
      expect((part.body as Buffer).equals(plain.subarray(CHUNK, CHUNK + 100))).toBe(true);
      expect(((await download('open.pdf', undefined, target).expect(200)).body as Buffer).equals(open)).toBe(true);
    });

    it('seals a file of exactly one chunk and an empty file as age files', async () => {
      for (const plain of [randomBytes(CHUNK), Buffer.alloc(0)]) {
        const name = `edge-${plain.length}.bin`;
        const path = await begin(name, plain.length);
        if (plain.length > 0) {
          await patch(path, 0, plain.subarray(0, 10)).expect(204);
          await patch(path, 10, plain.subarray(10)).expect(204);
        }
        const blob = await blobOf(name);
        expect(readFileSync(storage.objectPath(blob.storage_key)).length).toBe(sealedSize(plain.length));
        expect(((await download(name).expect(200)).body as Buffer).equals(plain)).toBe(true);
      }
    });

    it('refuses a chunk of wrong checksum without keeping it, and a changed tail as damaged', async () => {
      const plain = randomBytes(CHUNK + 500);
      const path = await begin('retry.pdf', plain.length);
      await patch(path, 0, plain.subarray(0, 300)).expect(204);
      const wrong = `sha256 ${Buffer.alloc(32).toString('base64')}`;
      await patch(path, 300, plain.subarray(300, CHUNK + 100), { 'Upload-Checksum': wrong }).expect(460);
      await patch(path, 300, plain.subarray(300, CHUNK + 100)).expect(204);
      // a tail changed at rest does not authenticate: nothing is appended to it
      const tampered = `UPDATE resumable_uploads SET store_state = jsonb_set(store_state, '{sealed,tail}', to_jsonb($2::text)) WHERE record_id = $1`;
      const [row] = await t.sql<{ store_state: { sealed: { tail: string } } }>(
        `SELECT store_state FROM resumable_uploads WHERE record_id = $1`,
        [recordId],
      );
      const bad = Buffer.from(row.store_state.sealed.tail, 'base64');
      bad[20] ^= 1;
      await t.sql(tampered, [recordId, bad.toString('base64')]);
      expect((await patch(path, CHUNK + 100, plain.subarray(CHUNK + 100))).status).toBe(409);
      await t.sql(tampered, [recordId, row.store_state.sealed.tail]);
      await patch(path, CHUNK + 100, plain.subarray(CHUNK + 100)).expect(204);
      expect(((await download('retry.pdf').expect(200)).body as Buffer).equals(plain)).toBe(true);
    });
  });

  describe('.age exports in ranges', () => {
    const agePath = (name: string, v = vaultId, r = recordId) => `${filesPath(v, r)}/${name}/age`;
    const ageGet = (name: string, headers: Record<string, string> = {}, v = vaultId) => {
      const req = t.get(owner, agePath(name, v));
      for (const [k, value] of Object.entries(headers)) req.set(k, value);
      return binary(req);
    };
    const exports = async (v = vaultId) =>
      (
        await t.sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM outbox_events WHERE subject = 'vault.file.exported.v1' AND vault_id = $1`,
          [v],
        )
      )[0].n;

    it('serves ranges under a strong ETag that join into the .age file the age CLI decrypts, each one recorded', async () => {
      const plain = randomBytes(3 * CHUNK + 1000);
      const blob = await uploaded('ranged.pdf', plain);
      const object = readFileSync(storage.objectPath(blob.storage_key));
      const envelope = blob.envelope as Buffer;
      const age = Buffer.concat([envelope, object]);

      const whole = await ageGet('ranged.pdf').expect(200);
      expect(whole.headers['accept-ranges']).toBe('bytes');
      expect(whole.headers.etag).toMatch(/^"age-[0-9a-f]{64}"$/);
      expect(whole.headers['content-length']).toBe(String(age.length));
      expect((whole.body as Buffer).equals(age)).toBe(true);
      const etag = whole.headers.etag as string;
      // the same bytes, so the same tag, at the next request
      expect((await ageGet('ranged.pdf', { Range: 'bytes=0-0' }).expect(206)).headers.etag).toBe(etag);

      // within the envelope, up to its last byte, the object's first byte alone, a bounded part of
      // the object, and the rest (open-ended)
      const e = envelope.length;
      const cuts = [
        [0, 9],
        [10, e - 1],
        [e, e],
        [e + 1, e + CHUNK],
        [e + CHUNK + 1, age.length - 1],
      ];
      const parts: Buffer[] = [];
      for (const [i, [start, end]] of cuts.entries()) {
        const range = i === cuts.length - 1 ? `bytes=${start}-` : `bytes=${start}-${end}`;
        const res = await ageGet('ranged.pdf', { Range: range, 'If-Range': etag }).expect(206);
        expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${age.length}`);
        expect(res.headers['content-length']).toBe(String(end - start + 1));
        expect(res.headers['cache-control']).toBe('no-store');
        parts.push(res.body as Buffer);
      }
      expect(Buffer.concat(parts).equals(age)).toBe(true);
      await expectAgeFileDecrypts(Buffer.concat(parts), plain);
      // the last bytes (a suffix range)
      const tail = await ageGet('ranged.pdf', { Range: 'bytes=-100' }).expect(206);
      expect((tail.body as Buffer).equals(age.subarray(age.length - 100))).toBe(true);
      // every answer that sent bytes is an export
      expect(await exports()).toBe(8);
    });

    it('sends the whole file for another If-Range, and refuses a range past the end with 416 before recording it', async () => {
      const plain = randomBytes(CHUNK + 5);
      const blob = await uploaded('tagged.pdf', plain);
      const length = (blob.envelope as Buffer).length + sealedSize(plain.length);
      const stale = await ageGet('tagged.pdf', { Range: 'bytes=100-', 'If-Range': `"age-${'0'.repeat(64)}"` }).expect(200);
      expect(stale.headers['content-range']).toBeUndefined();
      expect((stale.body as Buffer).length).toBe(length);
      expect(await exports()).toBe(1);

      for (const range of [`bytes=${length}-`, `bytes=${length + 10}-${length + 20}`]) {
        const refused = await t.get(owner, agePath('tagged.pdf')).set('Range', range).expect(416);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.headers['content-range']).toBe(`bytes */${length}`);
        expect(refused.body).toMatchObject({ status: 416, code: 'range_not_satisfiable', requestId: expect.any(String) });
      }
      // a malformed or backwards range is not a range: the whole file
      for (const range of ['bytes=20-10', 'lines=0-5']) {
        expect(((await ageGet('tagged.pdf', { Range: range }).expect(200)).body as Buffer).length).toBe(length);
      }
      expect(await exports()).toBe(3);
    });

    it('serves a range within the envelope without reading the stored object', async () => {
      const blob = await uploaded('envelope.pdf', randomBytes(100));
      const envelope = blob.envelope as Buffer;
      rmSync(storage.objectPath(blob.storage_key));
      const inside = await ageGet('envelope.pdf', { Range: `bytes=0-${envelope.length - 1}` }).expect(206);
      expect((inside.body as Buffer).equals(envelope)).toBe(true);
      // the object's first byte needs the object: gone from storage, the file is not found
      const beyond = await t.get(owner, agePath('envelope.pdf')).set('Range', `bytes=${envelope.length}-`).expect(404);
      expect(beyond.body).toMatchObject({ status: 404, requestId: expect.any(String) });
    });

    it('answers a HEAD with the headers of the file or range, reading nothing and recording no export', async () => {
      const plain = randomBytes(CHUNK + 9);
      const blob = await uploaded('probed.pdf', plain);
      const length = (blob.envelope as Buffer).length + sealedSize(plain.length);
      const head = (range?: string) => {
        const req = t
          .http()
          .head(`/api/v1${agePath('probed.pdf')}`)
          .set('Authorization', `Bearer ${owner.token}`);
        return range ? req.set('Range', range) : req;
      };
      const whole = await head().expect(200);
      expect(whole.headers['content-length']).toBe(String(length));
      expect(whole.headers['accept-ranges']).toBe('bytes');
      expect(whole.headers.etag).toMatch(/^"age-[0-9a-f]{64}"$/);
      const part = await head('bytes=10-19').expect(206);
      expect(part.headers['content-range']).toBe(`bytes 10-19/${length}`);
      expect(part.headers['content-length']).toBe('10');
      expect(await exports()).toBe(0);
      // a GET after it is an export, under the same tag
      const got = await ageGet('probed.pdf').expect(200);
      expect(got.headers.etag).toBe(whole.headers.etag);
      expect(await exports()).toBe(1);
    });

    it('sends a file sealed to another vault whole, without ETag or ranges: its rewrapped envelope differs at each export', async () => {
      const plain = randomBytes(CHUNK + 300);
      await uploaded('rewrapped.pdf', plain);
      const target = await t.createVault(owner);
      await t.sql(`UPDATE records SET vault_id = $2 WHERE id = $1`, [recordId, target]);
      const first = await ageGet('rewrapped.pdf', { Range: 'bytes=0-99' }, target).expect(200);
      expect(first.headers['accept-ranges']).toBe('none');
      expect(first.headers.etag).toBeUndefined();
      const second = await ageGet('rewrapped.pdf', { Range: 'bytes=0-99' }, target).expect(200);
      expect((first.body as Buffer).equals(second.body as Buffer)).toBe(false);
      await expectAgeFileDecrypts(first.body as Buffer, plain, target);
      await expectAgeFileDecrypts(second.body as Buffer, plain, target);
    });
  });

  it("exports the identity only after a sign-in within ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS (RFC 9470's challenge otherwise)", async () => {
    // an instance of the service on the same database and token issuer, with its own maximum age
    const strict = await t.bootInstance({ ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS: '120' });
    try {
      const route = `/vault/vault-id/${vaultId}/encryption/identity`;
      const tokenOf = (signedInAgo: number | null, who: Caller = owner) =>
        t.idp.token({ sub: who.openId, tid: who.tenantId, username: who.username, signedInAgo });
      const get = (token: string) =>
        request(strict.getHttpServer()).get(`/api/v1${route}`).set('Authorization', `Bearer ${token}`);
      for (const ago of [0, 119]) {
        const ok = await get(await tokenOf(ago)).expect(200);
        expect(ok.text).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+\n$/);
      }
      for (const ago of [121, 3600, null]) {
        const refused = await get(await tokenOf(ago)).expect(401);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.body).toMatchObject({ code: 'reauthentication_required', status: 401, requestId: expect.any(String) });
        expect(refused.headers['www-authenticate']).toBe(
          'Bearer realm="vault", error="insufficient_user_authentication", error_description="This operation needs a sign-in within the last 120 seconds: sign in again and repeat it.", max_age=120',
        );
        expect(refused.text).not.toContain('AGE-SECRET-KEY');
      }
      // refused before the export: only the two served exports are recorded
      const exported = await t.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox_events WHERE subject = 'vault.vault.key_exported.v1' AND vault_id = $1`,
        [vaultId],
      );
      expect(exported[0].n).toBe(2);
      // the role check comes first: a caller without a role and an old sign-in is not asked to sign in again
      const notFound = await get(await tokenOf(3600, await t.caller('tenant-a', 'sam'))).expect(404);
      expect(notFound.body.code).toBe('not_found');
      // the default (600 s) in the suite's instance: a sign-in 5 minutes old still exports there
      await t.get({ ...owner, token: await tokenOf(300) }, route).expect(200);
    } finally {
      await strict.close();
    }
  });

  it('encrypts a plaintext blob in the background job, readable before, during and after', async () => {
    const plain = randomBytes(2 * CHUNK + 5);
    const blob = await uploaded('old.pdf', plain);
    // as stored before encryption at rest: the plaintext under a key of its own, no envelope
    const oldKey = randomUUID();
    await storage.write(oldKey, Readable.from([plain]));
    await t.sql(`UPDATE blobs SET storage_key = $2, envelope = NULL, envelope_vault_id = NULL WHERE id = $1`, [blob.id, oldKey]);
    await t.sql(`UPDATE record_files SET storage_key = $2 WHERE storage_key = $1`, [blob.storage_key, oldKey]);
    expect(((await download('old.pdf').expect(200)).body as Buffer).equals(plain)).toBe(true);

    const pass = await t.app.get(BlobEncryptionJob).pass();
    expect(pass).toMatchObject({ encrypted: 1, mismatched: 0, plaintextLeft: 0 });
    const after = await blobOf('old.pdf');
    expect(after.storage_key).not.toBe(oldKey);
    expect(after.envelope_vault_id).toBe(vaultId);
    expect(((await download('old.pdf').expect(200)).body as Buffer).equals(plain)).toBe(true);
    const part = await download('old.pdf', 'bytes=100-200').expect(206);
    expect((part.body as Buffer).equals(plain.subarray(100, 201))).toBe(true);
    // the plaintext object stays for downloads under way, queued for removal
    expect(existsSync(storage.objectPath(oldKey))).toBe(true);
    expect(await t.sql(`SELECT 1 FROM file_purges WHERE storage_key = $1`, [oldKey])).toHaveLength(1);
  });

  it('leaves a plaintext blob whose bytes do not match its SHA-256 as it is', async () => {
    const blob = await uploaded('bad.pdf', randomBytes(1000));
    const oldKey = randomUUID();
    await storage.write(oldKey, Readable.from([randomBytes(1000)]));
    await t.sql(`UPDATE blobs SET storage_key = $2, envelope = NULL, envelope_vault_id = NULL WHERE id = $1`, [blob.id, oldKey]);
    const pass = await t.app.get(BlobEncryptionJob).pass();
    expect(pass.mismatched).toBe(1);
    expect((await t.sql<BlobRow>(`SELECT * FROM blobs WHERE id = $1`, [blob.id]))[0].storage_key).toBe(oldKey);
    await t.sql(`DELETE FROM records WHERE id = $1`, [recordId]);
  });

  it('reads a moved record with its old vault key, then rewraps it to the new vault in the database only', async () => {
    const plain = randomBytes(CHUNK + 77);
    const blob = await uploaded('moved.pdf', plain);
    const object = readFileSync(storage.objectPath(blob.storage_key));
    const target = await t.createVault(owner);
    await t.sql(`UPDATE records SET vault_id = $2 WHERE id = $1`, [recordId, target]);
    const moved = await blobOf('moved.pdf');
    expect([moved.vault_id, moved.envelope_vault_id]).toEqual([target, vaultId]);
    expect(((await download('moved.pdf', undefined, target).expect(200)).body as Buffer).equals(plain)).toBe(true);

    expect((await t.app.get(BlobEncryptionJob).pass()).rewrapped).toBeGreaterThanOrEqual(1);
    expect((await blobOf('moved.pdf')).envelope_vault_id).toBe(target);
    expect(readFileSync(storage.objectPath(blob.storage_key)).equals(object)).toBe(true);
    // the source vault's key can go now (crypto-erase): the moved file stays readable
    await t.app.get(VaultKeysService).destroy(vaultId);
    expect(((await download('moved.pdf', undefined, target).expect(200)).body as Buffer).equals(plain)).toBe(true);
  });

  it('crypto-erases a purged vault once no hold covers it, keeping files moved out of it readable', async () => {
    const kept = randomBytes(5000);
    await uploaded('kept.pdf', kept);
    const target = await t.createVault(owner);
    await t.sql(`UPDATE records SET vault_id = $2 WHERE id = $1`, [recordId, target]);
    const movedRecord = recordId;
    recordId = await t.createRecord(owner, vaultId);
    await uploaded('gone.pdf', randomBytes(5000));
    const purge = () =>
      t.app
        .get(Transactions)
        .run((tx) =>
          t.app.get(ItemPurger).purge(tx, 'vault', vaultId, { tenantId: 'tenant-a', openId: 'system', username: 'test' }),
        );
    await t.sql(`INSERT INTO legal_holds (tenant_id, vault_id, name, placed_by) VALUES ('tenant-a', $1, 'audit', 'c')`, [
      vaultId,
    ]);
    expect((await purge()).purged).toBe(false);
    expect(await t.sql(`SELECT 1 FROM vault_keys WHERE vault_id = $1 AND wrapped_key IS NOT NULL`, [vaultId])).toHaveLength(1);

    await t.sql(`UPDATE legal_holds SET released_at = now(), released_by = 'c' WHERE vault_id = $1`, [vaultId]);
    expect((await purge()).purged).toBe(true);
    expect(await t.sql(`SELECT 1 FROM vault_keys WHERE vault_id = $1`, [vaultId])).toEqual([]);
    await expect(t.app.get(VaultKeysService).identity(vaultId)).rejects.toBeInstanceOf(KeyUnwrapError);
    const res = await download('kept.pdf', undefined, target, movedRecord).expect(200);
    expect((res.body as Buffer).equals(kept)).toBe(true);
  });

  it('answers 503 with Retry-After while the key service is out, and serves again after', async () => {
    const plain = randomBytes(1000);
    await uploaded('later.pdf', plain);
    const kms = t.app.get(KeyEncryptionKeys);
    t.app.get(VaultKeysService).forget(vaultId);
    const unwrap = jest.spyOn(kms, 'unwrap').mockRejectedValue(new KeyServiceUnavailableError('token unreachable'));
    try {
      const res = await t.get(owner, `${filesPath(vaultId, recordId)}/later.pdf`).expect(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      unwrap.mockRestore();
    }
    expect(((await download('later.pdf').expect(200)).body as Buffer).equals(plain)).toBe(true);
  });
});
