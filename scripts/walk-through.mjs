// The README walk-through, run through the gateway by `npm run deploy:smoke` (the compose
// stack of the images) and `npm run deploy:install` (the apps started from their
// production installs): token, account, vault, record, upload, download, activity log,
// plain HTTP refused. Each step prints one "ok" line; the first failure throws.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The demo tenant that a development start creates (README, Quick start). */
export const DEMO = {
  tenant: 'demo',
  client: 'demo-app',
  clientSecret: 'demo-secret',
  username: 'demo@vault.local',
  password: 'demo-password',
};

/** A multipart/form-data body with `content` in the part `file`. */
export function multipart(boundary, content, filename, type = 'text/plain') {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

/** One HTTP(S) exchange with the gateway on 127.0.0.1, naming the module host. */
function callAt(ports, module, method, path, { token, json, raw, headers = {}, plain = false } = {}) {
  const host = `${module}-api.localhost`;
  const body = json !== undefined ? Buffer.from(JSON.stringify(json)) : raw;
  const all = {
    host: `${host}:${plain ? ports.http : ports.https}`,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...headers,
  };
  const options = {
    host: '127.0.0.1',
    port: plain ? ports.http : ports.https,
    method,
    path: `/api/v1${path}`,
    headers: all,
    timeout: 30_000,
  };
  return new Promise((resolvePromise, reject) => {
    const req = plain ? httpRequest(options) : httpsRequest({ ...options, servername: host, rejectUnauthorized: false });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        let parsed;
        try {
          parsed = JSON.parse(bytes.toString('utf8'));
        } catch {
          parsed = undefined;
        }
        resolvePromise({ status: res.statusCode, headers: res.headers, bytes, body: parsed });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${host}${path}: timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

function expectStatus(what, res, ...statuses) {
  if (!statuses.includes(res.status)) {
    throw new Error(`${what}: expected ${statuses.join(' or ')}, got ${res.status} ${res.bytes.toString('utf8').slice(0, 500)}`);
  }
  console.log(`ok   ${what} (${res.status})`);
  return res;
}

export async function waitForGateway(ports, deadlineMs) {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await callAt(ports, 'developer', 'GET', '/.well-known/jwks.json');
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 3000));
  }
  throw new Error(`the gateway did not answer within ${deadlineMs / 1000} s (${last})`);
}

/**
 * The README walk-through through the gateway at 127.0.0.1 (`ports`: { https, http }),
 * signed in as `demo` (the demo tenant's application and user).
 */
export async function walkThrough(ports, demo = DEMO) {
  const call = (...args) => callAt(ports, ...args);
  const auth = await call('developer', 'POST', `/tenant/tenant-id/${demo.tenant}/applications/client-id/${demo.client}/auth`, {
    json: { clientSecret: demo.clientSecret, username: demo.username, password: demo.password },
  });
  const token = expectStatus('token for the demo tenant', auth, 200).body?.access_token;
  if (typeof token !== 'string') throw new Error('no access_token in the token response');

  expectStatus(
    'create the account',
    await call('user', 'POST', '/accounts', { token, json: { username: demo.username, firstName: 'Dana', lastName: 'Demo' } }),
    201,
    200,
  );
  expectStatus(
    'create the account again: it exists',
    await call('user', 'POST', '/accounts', { token, json: { username: demo.username, firstName: 'Dana', lastName: 'Demo' } }),
    409,
  );

  const vault = expectStatus(
    'create a vault',
    await call('records', 'POST', '/vault', { token, json: { name: `Smoke ${new Date().toISOString()}` } }),
    201,
  );
  const vaultId = vault.body?.id;
  const record = expectStatus(
    'create a record',
    await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token,
      json: { name: 'Passport', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    }),
    200,
    201,
  );
  const files = `/vault/vault-id/${vaultId}/records/record-id/${record.body?.id}/record-files`;

  const content = randomBytes(256 * 1024).toString('base64');
  const sha256 = createHash('sha256').update(content).digest('hex');
  const boundary = `smoke-${randomBytes(8).toString('hex')}`;
  const query = new URLSearchParams({ fileName: 'smoke.txt', correlationId: '260101120000', fileType: 'document' });
  expectStatus(
    'upload a file',
    await call('records', 'POST', `${files}?${query}`, {
      token,
      raw: multipart(boundary, content, 'smoke.txt'),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-checksum-sha256': sha256 },
    }),
    201,
  );
  const download = expectStatus('download it', await call('records', 'GET', `${files}/smoke.txt`, { token }), 200);
  if (createHash('sha256').update(download.bytes).digest('hex') !== sha256)
    throw new Error('the downloaded bytes differ from the uploaded ones');
  console.log('ok   downloaded bytes equal the uploaded ones');

  // The activity log is written by the relay and the writer in the background.
  const until = Date.now() + 30_000;
  for (;;) {
    const log = expectStatus(
      'read the vault activity log',
      await call('records', 'GET', `/vault/vault-id/${vaultId}/log`, { token }),
      200,
    );
    const entities = (log.body?.data ?? []).map((e) => e.entity);
    if (entities.includes('Vault') && entities.includes('Record')) {
      console.log(`ok   the log lists ${entities.join(', ')}`);
      break;
    }
    if (Date.now() > until)
      throw new Error(`the activity log has no Vault and Record entries after 30 s (${entities.join(', ') || 'empty'})`);
    await new Promise((r) => setTimeout(r, 1000));
  }

  const plain = await call('records', 'GET', '/vault', { plain: true, token });
  if (plain.status < 400 || plain.status >= 500 || plain.headers.location || !plain.body) {
    throw new Error(
      `plain HTTP must be refused with a 4xx problem body and no redirect, got ${plain.status} ${plain.bytes.toString('utf8').slice(0, 200)}`,
    );
  }
  console.log(`ok   plain HTTP refused (${plain.status} ${plain.body.code ?? plain.body.title ?? ''})`);
}
