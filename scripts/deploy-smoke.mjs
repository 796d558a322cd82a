#!/usr/bin/env node
// `npm run deploy:smoke`: builds the four images with deploy/docker/Dockerfile, starts
// docker-compose.yml with them, runs the README walk-through through the gateway (token,
// account, vault, record, upload, download, activity log, plain HTTP refused) and tears
// everything down. Its first line says which engine builds and which compose runs the stack.
//
// Engine (builds): docker when it has BuildKit (`docker buildx version`) and a Docker server
// that answers, else podman (built with `--format docker`, which keeps the HEALTHCHECK).
// Compose (runs): with docker, `docker compose` (v2) or `docker-compose`; with podman,
// `podman compose` (podman 4.7+), else `docker-compose` (1.29 or v2) or `docker compose`
// against podman's Docker API socket (DOCKER_HOST, else the socket `podman info` names).
// Each is chosen by what actually answers, not by which binary exists.
//
// Needs the base images (docs/deploy.md §2), so CI does not run it.
// Environment:
//   CONTAINER_ENGINE   docker | podman (default: as above)
//   CONTAINER_COMPOSE  "docker compose" | "podman compose" | docker-compose (default: as above)
//   SMOKE_HTTPS_PORT, SMOKE_HTTP_PORT  host ports the gateway is published on (8443, 8080)
//   NPMRC, NPM_CA      files passed to the builds as the `npmrc` and `npm-ca` build secrets
//   VAULT_TAG          image tag (default smoke)
//   SMOKE_PROJECT      compose project name (default vault-smoke)
//   KEEP=1             leave the project running at the end
//   SKIP_BUILD=1       use existing vault/<app>:$VAULT_TAG images
//   --dry-run          print the commands instead of running them (nothing is called)
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

const COMPOSE_COMMANDS = {
  'docker compose': ['docker', 'compose'],
  'podman compose': ['podman', 'compose'],
  'docker-compose': ['docker-compose'],
};
/** Compose commands tried for each engine, in this order. */
export const COMPOSE_CANDIDATES = {
  docker: ['docker compose', 'docker-compose'],
  podman: ['podman compose', 'docker-compose', 'docker compose'],
};

/** Runs `bin args` and returns its trimmed standard output, or null when it cannot run or fails. */
export function probeCommand(bin, args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** A probe for --dry-run: every tool answers, nothing is called. */
export function dryRunProbe(bin, args) {
  if (bin === 'podman' && args[0] === 'info') return "true <podman's API socket>";
  return '(dry run)';
}

const versionIn = (text) => /\bv?(\d+\.\d+\.\d+[\w.+-]*)/.exec(text ?? '')?.[1] ?? (text ? text.split('\n')[0] : '?');

/**
 * The engine that builds the images: CONTAINER_ENGINE, else docker when it has BuildKit
 * (`docker buildx version`: without it `docker build` cannot use the Dockerfile's secret and
 * cache mounts) and its server answers, else podman. `probe(bin, args)` returns a command's
 * output or null.
 */
export function pickEngine(env = process.env, probe = probeCommand) {
  const docker = () => {
    if (probe('docker', ['buildx', 'version']) === null) return { missing: 'docker has no buildx (BuildKit) component' };
    const server = probe('docker', ['version', '--format', '{{.Server.Version}}{{range .Server.Components}}, {{.Name}}{{end}}']);
    if (server === null) return { missing: 'docker: its server does not answer' };
    // DOCKER_HOST at podman's socket: podman answers the API but has no BuildKit to build with.
    if (/Podman Engine/.test(server))
      return { missing: 'docker talks to a podman server (DOCKER_HOST), which builds with podman' };
    return { name: 'docker', version: versionIn(server) };
  };
  const podman = () => {
    const version = probe('podman', ['version', '--format', '{{.Client.Version}}']);
    return version === null ? { missing: 'podman does not answer' } : { name: 'podman', version: versionIn(version) };
  };
  const wanted = env.CONTAINER_ENGINE;
  if (wanted) {
    if (wanted !== 'docker' && wanted !== 'podman') throw new Error(`CONTAINER_ENGINE must be docker or podman, not "${wanted}"`);
    const found = wanted === 'docker' ? docker() : podman();
    if (found.missing) throw new Error(`CONTAINER_ENGINE=${wanted}, but ${found.missing}`);
    return found;
  }
  const tried = [];
  for (const candidate of [docker, podman]) {
    const found = candidate();
    if (!found.missing) return found;
    tried.push(found.missing);
  }
  throw new Error(
    `no engine can build the images (${tried.join('; ')}): install docker with buildx, or podman, or set CONTAINER_ENGINE`,
  );
}

/**
 * The compose that runs the stack for `engine` ({ name }): CONTAINER_COMPOSE, else the
 * first of COMPOSE_CANDIDATES[engine.name] whose `version` answers. A compose other than
 * `podman compose` talks to podman through its Docker API socket: DOCKER_HOST when set,
 * else the socket `podman info` names, which must exist (`podman system service`).
 * Returns { command: [bin, ...args], label, version, dockerHost? }.
 */
export function pickCompose(engine, env = process.env, probe = probeCommand) {
  const wanted = env.CONTAINER_COMPOSE?.trim().replace(/\s+/g, ' ');
  if (wanted && !COMPOSE_COMMANDS[wanted])
    throw new Error(
      `CONTAINER_COMPOSE must be one of ${Object.keys(COMPOSE_COMMANDS)
        .map((c) => `"${c}"`)
        .join(', ')}, not "${wanted}"`,
    );
  const candidates = wanted ? [wanted] : COMPOSE_CANDIDATES[engine.name];
  let chosen;
  for (const label of candidates) {
    const [bin, ...sub] = COMPOSE_COMMANDS[label];
    const out = probe(bin, [...sub, 'version']);
    if (out !== null) {
      chosen = { command: COMPOSE_COMMANDS[label], label, version: versionIn(out) };
      break;
    }
  }
  if (!chosen) {
    throw new Error(
      wanted
        ? `CONTAINER_COMPOSE="${wanted}", but \`${wanted} version\` does not answer`
        : `no compose answers for ${engine.name} (tried ${candidates.map((c) => `\`${c} version\``).join(', ')}): install Docker Compose v2, podman 4.7+ with a compose provider, or docker-compose`,
    );
  }
  if (engine.name === 'podman' && chosen.label !== 'podman compose') {
    let dockerHost = env.DOCKER_HOST;
    if (!dockerHost) {
      const [exists, path] = (
        probe('podman', ['info', '--format', '{{.Host.RemoteSocket.Exists}} {{.Host.RemoteSocket.Path}}']) ?? ''
      ).split(' ');
      if (exists !== 'true' || !path) {
        throw new Error(
          `${chosen.label} reaches podman through its Docker API socket, which is not there${path ? ` (${path})` : ''}: start \`podman system service --time=0 unix://<socket> &\` and set DOCKER_HOST=unix://<socket>`,
        );
      }
      dockerHost = path.startsWith('/') ? `unix://${path}` : path;
    }
    chosen.dockerHost = dockerHost;
  }
  return chosen;
}

/** The engine and the compose of a run, and the line that says so. */
export function pickTools(env = process.env, probe = probeCommand) {
  const engine = pickEngine(env, probe);
  const compose = pickCompose(engine, env, probe);
  const format = engine.name === 'podman' ? ' (--format docker)' : '';
  const through = compose.dockerHost ? ` through DOCKER_HOST=${compose.dockerHost}` : '';
  const summary = `deploy:smoke: ${engine.name} ${engine.version} builds the images${format}; ${compose.label} ${compose.version} runs the stack${through}`;
  return { engine, compose, summary };
}

/** Host ports the gateway is published on: SMOKE_HTTPS_PORT and SMOKE_HTTP_PORT (8443, 8080). */
export function smokePorts(env = process.env) {
  const port = (name, fallback) => {
    const raw = env[name] || String(fallback);
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
    return n;
  };
  const ports = { https: port('SMOKE_HTTPS_PORT', 8443), http: port('SMOKE_HTTP_PORT', 8080) };
  if (ports.https === ports.http) throw new Error(`SMOKE_HTTPS_PORT and SMOKE_HTTP_PORT are both ${ports.https}`);
  return ports;
}

/** The compose project's env file: generated secrets, the image tag and the gateway's host ports. */
export function smokeEnv(tag, ports) {
  return [
    `POSTGRES_PASSWORD=${randomBytes(18).toString('hex')}`,
    `KEY_ENCRYPTION_SECRET=${randomBytes(24).toString('hex')}`,
    `WEBHOOK_SECRET_KEYS=smoke:${randomBytes(32).toString('base64')}`,
    `ENCRYPTION_KEYRING=smoke:${randomBytes(32).toString('base64')}`,
    `VAULT_TAG=${tag}`,
    `GATEWAY_HTTPS_PORT=${ports.https}`,
    `GATEWAY_HTTP_PORT=${ports.http}`,
    'NODE_ENV=development',
    '',
  ].join('\n');
}

/**
 * Arguments of the image build of one app (build secrets for the registry settings when
 * given). podman builds the docker image format: its default (OCI) has no HEALTHCHECK.
 */
export function buildArgs(app, { engine = 'docker', tag, npmrc, npmCa }) {
  const args = [
    'build',
    ...(engine === 'podman' ? ['--format', 'docker'] : []),
    '-f',
    'deploy/docker/Dockerfile',
    '--build-arg',
    `APP=${app}`,
    '-t',
    `vault/${app}:${tag}`,
  ];
  if (npmrc) args.push('--secret', `id=npmrc,src=${npmrc}`);
  if (npmCa) args.push('--secret', `id=npm-ca,src=${npmCa}`);
  args.push('.');
  return args;
}

/**
 * The command of one compose call for the smoke project: [bin, ...args]. The project is
 * always named with -p (docker-compose 1.x refuses a `name:` in the file).
 */
export function composeArgs(compose, project, envFile, ...rest) {
  return [...compose.command, '-p', project, '-f', 'docker-compose.yml', '--env-file', envFile, ...rest];
}

const seconds = (since) => `${Math.round((Date.now() - since) / 100) / 10} s`;

function run([bin, ...args], { env = {}, allowFailure = false, what = `${bin} ${args.slice(0, 2).join(' ')}` } = {}) {
  console.log(`$ ${bin} ${args.join(' ')}`);
  if (DRY_RUN) return { status: 0 };
  const r = spawnSync(bin, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, DOCKER_BUILDKIT: '1', ...env } });
  if (r.status !== 0 && !allowFailure) throw new Error(`${what} failed (exit ${r.status ?? r.signal ?? r.error?.message})`);
  return r;
}

async function main() {
  const started = Date.now();
  const { engine, compose, summary } = pickTools(process.env, DRY_RUN ? dryRunProbe : probeCommand);
  console.log(summary);
  const ports = smokePorts();
  const tag = process.env.VAULT_TAG || 'smoke';
  const project = process.env.SMOKE_PROJECT || 'vault-smoke';
  const dir = mkdtempSync(join(tmpdir(), 'vault-smoke-'));
  const envFile = join(dir, 'smoke.env');
  writeFileSync(envFile, smokeEnv(tag, ports), { mode: 0o600 });
  const composeEnv = compose.dockerHost ? { DOCKER_HOST: compose.dockerHost } : {};
  const composeRun = (args, options = {}) =>
    run(composeArgs(compose, project, envFile, ...args), { env: composeEnv, ...options });
  let failed = false;
  try {
    if (!process.env.SKIP_BUILD) {
      for (const app of APPS) {
        const since = Date.now();
        run([engine.name, ...buildArgs(app, { engine: engine.name, tag, npmrc: process.env.NPMRC, npmCa: process.env.NPM_CA })], {
          what: `${engine.name} build of vault/${app}:${tag}`,
        });
        if (!DRY_RUN) console.log(`built vault/${app}:${tag} in ${seconds(since)}`);
      }
    }
    const upSince = Date.now();
    composeRun(['up', '-d', '--no-build'], { what: `${compose.label} up` });
    if (!DRY_RUN) {
      await waitForGateway(ports, 240_000);
      console.log(`stack answering on ${ports.https}/${ports.http} ${seconds(upSince)} after \`up\``);
      const walkSince = Date.now();
      await walkThrough(ports);
      console.log(`walk-through passed in ${seconds(walkSince)}`);
    }
    console.log(DRY_RUN ? 'deploy:smoke dry run: commands printed, nothing run' : `deploy:smoke passed in ${seconds(started)}`);
  } catch (err) {
    failed = true;
    console.error(`deploy:smoke failed: ${err instanceof Error ? err.message : String(err)}`);
    if (!DRY_RUN) composeRun(['ps', '-a'], { allowFailure: true });
    if (!DRY_RUN) composeRun(['logs', '--no-color', '--tail', '80'], { allowFailure: true });
  } finally {
    if (!process.env.KEEP) composeRun(['down', '-v', '--remove-orphans'], { allowFailure: true });
    else
      console.log(
        `left running: ${compose.dockerHost ? `DOCKER_HOST=${compose.dockerHost} ` : ''}${composeArgs(compose, project, envFile, 'down', '-v').join(' ')} stops it`,
      );
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main();
  } catch (err) {
    console.error(`deploy:smoke: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
