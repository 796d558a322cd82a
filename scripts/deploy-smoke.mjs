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
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForGateway, walkThrough } from './walk-through.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const APPS = ['gateway', 'developer-service', 'user-service', 'records-service'];
const DRY_RUN = process.argv.includes('--dry-run');
const PORTS = { https: 8443, http: 8080 };

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
      await waitForGateway(PORTS, 240_000);
      await walkThrough(PORTS);
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
