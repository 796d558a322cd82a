#!/usr/bin/env node
// `npm run deploy:smoke`: builds the four images with deploy/docker/Dockerfile (docker, or
// podman when docker is absent; CONTAINER_ENGINE chooses), starts docker-compose.yml with
// them, runs the README walk-through through the gateway (token, account, vault, record,
// upload, download, activity log, plain HTTP refused) and tears everything down.
//
// Needs the base images from a registry, so CI does not run it (docs/deploy.md §2).
// Environment:
//   CONTAINER_ENGINE  docker | podman (default: docker if it answers, else podman)
//   NPMRC, NPM_CA     files passed to the builds as the `npmrc` and `npm-ca` BuildKit secrets
//   VAULT_TAG         image tag (default smoke)
//   SMOKE_PROJECT     compose project name (default vault-smoke)
//   KEEP=1            leave the project running at the end
//   SKIP_BUILD=1      use existing vault/<app>:$VAULT_TAG images
//   --dry-run         print the engine commands instead of running them (nothing is called)
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const APPS = ['gateway', 'developer-service', 'user-service', 'records-service'];
const DRY_RUN = process.argv.includes('--dry-run');
const HTTPS_PORT = 8443;
const HTTP_PORT = 8080;
const DEMO = { tenant: 'demo', client: 'demo-app', clientSecret: 'demo-secret', username: 'demo@vault.local', password: 'demo-password' };

/** The container engine: CONTAINER_ENGINE, else docker when it answers, else podman. */
export function pickEngine(env = process.env, answers = (bin) => spawnSync(bin, ['version'], { stdio: 'ignore' }).status === 0) {
  if (env.CONTAINER_ENGINE) return env.CONTAINER_ENGINE;
  if (answers('docker')) return 'docker';
  if (answers('podman')) return 'podman';
  throw new Error('neither docker nor podman answers: install one, or set CONTAINER_ENGINE');
}

/** Arguments of the image build of one app (BuildKit secrets for the registry settings when given). */
export function buildArgs(app, { tag, npmrc, npmCa }) {
  const args = ['build', '-f', 'deploy/docker/Dockerfile', '--build-arg', `APP=${app}`, '-t', `vault/${app}:${tag}`];
  if (npmrc) args.push('--secret', `id=npmrc,src=${npmrc}`);
  if (npmCa) args.push('--secret', `id=npm-ca,src=${npmCa}`);
  args.push('.');
  return args;
}

/** Arguments of `<engine> compose ...` for the smoke project. */
export function composeArgs(project, envFile, ...rest) {
  return ['compose', '-p', project, '-f', 'docker-compose.yml', '--env-file', envFile, ...rest];
}

/** A multipart/form-data body with `content` in the part `file`. */
export function multipart(boundary, content, filename, type = 'text/plain') {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

function run(engine, args, { allowFailure = false, quiet = false } = {}) {
  console.log(`$ ${engine} ${args.join(' ')}`);
  if (DRY_RUN) return { status: 0, stdout: '' };
  const r = spawnSync(engine, args, {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, DOCKER_BUILDKIT: '1' },
  });
  if (r.status !== 0 && !allowFailure) throw new Error(`${engine} ${args[0]} ${args[1] ?? ''} failed (exit ${r.status})${quiet ? `: ${r.stderr}` : ''}`);
  return r;
}

/** One HTTP(S) exchange with the gateway on 127.0.0.1, naming the module host. */
function call(module, method, path, { token, json, raw, headers = {}, plain = false } = {}) {
  const host = `${module}-api.localhost`;
  const body = json !== undefined ? Buffer.from(JSON.stringify(json)) : raw;
  const all = {
    host: `${host}:${plain ? HTTP_PORT : HTTPS_PORT}`,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...headers,
  };
  const options = { host: '127.0.0.1', port: plain ? HTTP_PORT : HTTPS_PORT, method, path: `/api/v1${path}`, headers: all, timeout: 30_000 };
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

async function waitForGateway(deadlineMs) {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await call('developer', 'GET', '/.well-known/jwks.json');
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 3000));
  }
  throw new Error(`the gateway did not answer within ${deadlineMs / 1000} s (${last})`);
}

/** The README walk-through through the gateway. */
async function walkThrough() {
  const auth = await call('developer', 'POST', `/tenant/tenant-id/${DEMO.tenant}/applications/client-id/${DEMO.client}/auth`, {
    json: { clientSecret: DEMO.clientSecret, username: DEMO.username, password: DEMO.password },
  });
  const token = expectStatus('token for the demo tenant', auth, 200).body?.access_token;
  if (typeof token !== 'string') throw new Error('no access_token in the token response');

  expectStatus('create the account', await call('user', 'POST', '/accounts', { token, json: { username: DEMO.username, firstName: 'Dana', lastName: 'Demo' } }), 201, 200);
  expectStatus('create the account again: it exists', await call('user', 'POST', '/accounts', { token, json: { username: DEMO.username, firstName: 'Dana', lastName: 'Demo' } }), 409);

  const vault = expectStatus('create a vault', await call('records', 'POST', '/vault', { token, json: { name: `Smoke ${new Date().toISOString()}` } }), 201);
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
  if (createHash('sha256').update(download.bytes).digest('hex') !== sha256) throw new Error('the downloaded bytes differ from the uploaded ones');
  console.log('ok   downloaded bytes equal the uploaded ones');

  // The activity log is written by the relay and the writer in the background.
  const until = Date.now() + 30_000;
  for (;;) {
    const log = expectStatus('read the vault activity log', await call('records', 'GET', `/vault/vault-id/${vaultId}/log`, { token }), 200);
    const entities = (log.body?.data ?? []).map((e) => e.entity);
    if (entities.includes('Vault') && entities.includes('Record')) {
      console.log(`ok   the log lists ${entities.join(', ')}`);
      break;
    }
    if (Date.now() > until) throw new Error(`the activity log has no Vault and Record entries after 30 s (${entities.join(', ') || 'empty'})`);
    await new Promise((r) => setTimeout(r, 1000));
  }

  const plain = await call('records', 'GET', '/vault', { plain: true, token });
  if (plain.status < 400 || plain.status >= 500 || plain.headers.location || !plain.body) {
    throw new Error(`plain HTTP must be refused with a 4xx problem body and no redirect, got ${plain.status} ${plain.bytes.toString('utf8').slice(0, 200)}`);
  }
  console.log(`ok   plain HTTP refused (${plain.status} ${plain.body.code ?? plain.body.title ?? ''})`);
}

async function main() {
  const engine = DRY_RUN ? process.env.CONTAINER_ENGINE || 'docker' : pickEngine();
  const tag = process.env.VAULT_TAG || 'smoke';
  const project = process.env.SMOKE_PROJECT || 'vault-smoke';
  const dir = mkdtempSync(join(tmpdir(), 'vault-smoke-'));
  const envFile = join(dir, 'smoke.env');
  writeFileSync(
    envFile,
    [`POSTGRES_PASSWORD=${randomBytes(18).toString('hex')}`, `KEY_ENCRYPTION_SECRET=${randomBytes(24).toString('hex')}`, `WEBHOOK_SECRET_KEYS=smoke:${randomBytes(32).toString('base64')}`, `VAULT_TAG=${tag}`, 'NODE_ENV=development', ''].join('\n'),
    { mode: 0o600 },
  );
  let failed = false;
  try {
    if (!process.env.SKIP_BUILD) {
      for (const app of APPS) run(engine, buildArgs(app, { tag, npmrc: process.env.NPMRC, npmCa: process.env.NPM_CA }));
    }
    run(engine, composeArgs(project, envFile, 'up', '-d', '--no-build'));
    if (!DRY_RUN) {
      await waitForGateway(240_000);
      await walkThrough();
    }
    console.log(DRY_RUN ? 'deploy:smoke dry run: commands printed, nothing run' : 'deploy:smoke passed');
  } catch (err) {
    failed = true;
    console.error(`deploy:smoke failed: ${err instanceof Error ? err.message : String(err)}`);
    if (!DRY_RUN) run(engine, composeArgs(project, envFile, 'ps', '-a'), { allowFailure: true });
    if (!DRY_RUN) run(engine, composeArgs(project, envFile, 'logs', '--no-color', '--tail', '80'), { allowFailure: true });
  } finally {
    if (!process.env.KEEP) run(engine, composeArgs(project, envFile, 'down', '-v', '--remove-orphans'), { allowFailure: true });
    else console.log(`left running: ${engine} ${composeArgs(project, envFile, 'down', '-v').join(' ')} stops it`);
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
