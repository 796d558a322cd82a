import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const SCRIPT = path.join(__dirname, '../../deploy-smoke.mjs');
const APPS = ['gateway', 'developer-service', 'user-service', 'records-service'];

/** Environment of a child process: the test's, without the variables deploy:smoke reads, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of [
    'CONTAINER_ENGINE',
    'CONTAINER_COMPOSE',
    'DOCKER_HOST',
    'SMOKE_HTTPS_PORT',
    'SMOKE_HTTP_PORT',
    'NPMRC',
    'NPM_CA',
    'VAULT_TAG',
    'SMOKE_PROJECT',
    'KEEP',
    'SKIP_BUILD',
  ])
    delete base[key];
  return { ...base, ...env };
}

interface Choice {
  error?: string;
  summary?: string;
  engine?: { name: string; version: string };
  compose?: { command: string[]; label: string; version: string; dockerHost?: string };
  calls: string[];
}

/**
 * pickTools of scripts/deploy-smoke.mjs (an ES module, so called in a child node) with a
 * fake probe: `answers` maps the start of a command line to its output; a command no key
 * starts, or a key mapped to null, fails as a missing tool would.
 */
function choose(answers: Record<string, string | null>, env: Record<string, string> = {}): Choice {
  const code = `
    const m = await import(${JSON.stringify(pathToFileURL(SCRIPT).href)});
    const answers = JSON.parse(process.env.FAKE_ANSWERS);
    const calls = [];
    const probe = (bin, args) => {
      const line = [bin, ...args].join(' ');
      calls.push(line);
      const key = Object.keys(answers).filter((k) => line === k || line.startsWith(k + ' ')).sort((a, b) => b.length - a.length)[0];
      return key === undefined ? null : answers[key];
    };
    let out;
    try { out = m.pickTools(JSON.parse(process.env.FAKE_ENV), probe); } catch (err) { out = { error: err.message }; }
    console.log(JSON.stringify({ ...out, calls }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: childEnv({ FAKE_ANSWERS: JSON.stringify(answers), FAKE_ENV: JSON.stringify(env) }),
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Choice;
}

// What the tools answer on a few kinds of machine.
const DOCKER_SERVER = { 'docker version --format': '28.2.2, Engine, containerd, runc, docker-init' };
const BUILDX = { 'docker buildx version': 'github.com/docker/buildx v0.23.0 28c90ea' };
const COMPOSE_V2 = { 'docker compose version': 'Docker Compose version v2.36.2' };
const PODMAN = { 'podman version --format': '4.3.1' };
const COMPOSE_V1 = { 'docker-compose version': 'docker-compose version 1.29.2, build unknown\ndocker-py version: 5.0.3' };
const PODMAN_COMPOSE = { 'podman compose version': 'Docker Compose version v2.29.7' };
const PODMAN_SOCKET = { 'podman info --format': 'true /run/podman/podman.sock' };

describe('deploy:smoke chooses its engine and compose by what answers', () => {
  it('uses docker with BuildKit and Compose v2 when both answer', () => {
    const c = choose({ ...BUILDX, ...DOCKER_SERVER, ...COMPOSE_V2, ...PODMAN, ...PODMAN_COMPOSE });
    expect(c.engine).toEqual({ name: 'docker', version: '28.2.2' });
    expect(c.compose).toEqual({ command: ['docker', 'compose'], label: 'docker compose', version: '2.36.2' });
    expect(c.summary).toBe('deploy:smoke: docker 28.2.2 builds the images; docker compose 2.36.2 runs the stack');
  });

  it('uses docker-compose with docker when the compose plugin is missing', () => {
    const c = choose({ ...BUILDX, ...DOCKER_SERVER, ...COMPOSE_V1 });
    expect(c.compose).toMatchObject({ command: ['docker-compose'], version: '1.29.2' });
    expect(c.compose?.dockerHost).toBeUndefined();
  });

  it('skips a bare docker CLI (no buildx, no compose) and builds with podman, run by docker-compose 1.29 on its socket', () => {
    const c = choose(
      { 'docker version --format': '4.3.1, Podman Engine, Conmon, OCI Runtime (runc), Engine', ...PODMAN, ...COMPOSE_V1 },
      { DOCKER_HOST: 'unix:///run/vaultpod/podman.sock' },
    );
    expect(c.engine).toEqual({ name: 'podman', version: '4.3.1' });
    expect(c.compose).toEqual({
      command: ['docker-compose'],
      label: 'docker-compose',
      version: '1.29.2',
      dockerHost: 'unix:///run/vaultpod/podman.sock',
    });
    expect(c.summary).toBe(
      'deploy:smoke: podman 4.3.1 builds the images (--format docker); docker-compose 1.29.2 runs the stack through DOCKER_HOST=unix:///run/vaultpod/podman.sock',
    );
    // What answered was asked, not which binaries exist.
    expect(c.calls).toContain('docker buildx version');
    expect(c.calls).toContain('podman compose version');
    expect(c.calls).not.toContain('docker compose version');
  });

  it('does not build with docker when its server is podman, even with buildx', () => {
    const c = choose(
      { ...BUILDX, 'docker version --format': '4.3.1, Podman Engine, Conmon', ...COMPOSE_V2, ...PODMAN, ...PODMAN_COMPOSE },
      { DOCKER_HOST: 'unix:///run/podman/podman.sock' },
    );
    expect(c.engine?.name).toBe('podman');
    expect(c.compose?.label).toBe('podman compose');
  });

  it('prefers podman compose (podman 4.7+) under podman, which needs no DOCKER_HOST', () => {
    const c = choose({ ...PODMAN, ...PODMAN_COMPOSE, ...COMPOSE_V1 });
    expect(c.compose).toEqual({ command: ['podman', 'compose'], label: 'podman compose', version: '2.29.7' });
    expect(c.summary).toBe(
      'deploy:smoke: podman 4.3.1 builds the images (--format docker); podman compose 2.29.7 runs the stack',
    );
  });

  it("finds podman's socket without DOCKER_HOST, and says how to start it when it is not there", () => {
    expect(choose({ ...PODMAN, ...COMPOSE_V1, ...PODMAN_SOCKET }).compose?.dockerHost).toBe('unix:///run/podman/podman.sock');
    const none = choose({ ...PODMAN, ...COMPOSE_V1, 'podman info --format': 'false /run/podman/podman.sock' });
    expect(none.error).toMatch(
      /docker-compose reaches podman through its Docker API socket, which is not there \(\/run\/podman\/podman\.sock\): start `podman system service/,
    );
  });

  it('uses Docker Compose v2 of a docker CLI without buildx against podman', () => {
    const c = choose({ ...COMPOSE_V2, ...PODMAN }, { DOCKER_HOST: 'unix:///run/podman/podman.sock' });
    expect(c.engine?.name).toBe('podman');
    expect(c.compose).toMatchObject({ label: 'docker compose', dockerHost: 'unix:///run/podman/podman.sock' });
  });

  it('follows CONTAINER_ENGINE and CONTAINER_COMPOSE, and refuses them when they do not answer', () => {
    const forced = choose(
      { ...BUILDX, ...DOCKER_SERVER, ...COMPOSE_V2, ...PODMAN, ...COMPOSE_V1 },
      { CONTAINER_ENGINE: 'podman', CONTAINER_COMPOSE: 'docker-compose', DOCKER_HOST: 'unix:///p.sock' },
    );
    expect(forced.engine?.name).toBe('podman');
    expect(forced.compose).toMatchObject({ label: 'docker-compose', dockerHost: 'unix:///p.sock' });
    expect(choose({ ...DOCKER_SERVER, ...COMPOSE_V2 }, { CONTAINER_ENGINE: 'docker' }).error).toBe(
      'CONTAINER_ENGINE=docker, but docker has no buildx (BuildKit) component',
    );
    expect(choose({ ...PODMAN, ...COMPOSE_V1 }, { CONTAINER_COMPOSE: 'podman  compose' }).error).toBe(
      'CONTAINER_COMPOSE="podman compose", but `podman compose version` does not answer',
    );
    expect(choose({ ...PODMAN }, { CONTAINER_COMPOSE: 'compose' }).error).toMatch(
      /^CONTAINER_COMPOSE must be one of "docker compose", "podman compose", "docker-compose"/,
    );
    expect(choose({}, { CONTAINER_ENGINE: 'nerdctl' }).error).toBe('CONTAINER_ENGINE must be docker or podman, not "nerdctl"');
  });

  it('says what is missing when nothing can build or run the stack', () => {
    expect(choose({ ...DOCKER_SERVER }).error).toBe(
      'no engine can build the images (docker has no buildx (BuildKit) component; podman does not answer): install docker with buildx, or podman, or set CONTAINER_ENGINE',
    );
    expect(choose({ ...PODMAN }).error).toMatch(
      /^no compose answers for podman \(tried `podman compose version`, `docker-compose version`, `docker compose version`\)/,
    );
  });
});

/** `npm run deploy:smoke` cannot run in CI (no base images); its command plan is checked with --dry-run. */
describe('npm run deploy:smoke --dry-run', () => {
  const dryRun = (env: Record<string, string>) => {
    const r = spawnSync(process.execPath, [SCRIPT, '--dry-run'], { encoding: 'utf8', env: childEnv(env) });
    return {
      status: r.status,
      out: r.stdout.split('\n'),
      stderr: r.stderr,
      lines: r.stdout.split('\n').filter((l) => l.startsWith('$ ')),
    };
  };

  it('says the engine and compose first, builds the four images with --format docker under podman, then starts and always stops the project', () => {
    const { status, out, lines } = dryRun({
      CONTAINER_ENGINE: 'podman',
      VAULT_TAG: 't1',
      NPMRC: '/run/ci.npmrc',
      NPM_CA: '/run/ca.pem',
    });
    expect(status).toBe(0);
    expect(out[0]).toBe(
      'deploy:smoke: podman (dry run) builds the images (--format docker); podman compose (dry run) runs the stack',
    );
    expect(lines.slice(0, 4)).toEqual(
      APPS.map(
        (a) =>
          `$ podman build --format docker -f deploy/docker/Dockerfile --build-arg APP=${a} -t vault/${a}:t1 --secret id=npmrc,src=/run/ci.npmrc --secret id=npm-ca,src=/run/ca.pem .`,
      ),
    );
    expect(lines[4]).toMatch(
      /^\$ podman compose -p vault-smoke -f docker-compose\.yml --env-file \S+smoke\.env up -d --no-build$/,
    );
    expect(lines[5]).toMatch(/^\$ podman compose -p vault-smoke .* down -v --remove-orphans$/);
    expect(lines).toHaveLength(6);
  });

  it('builds with docker without --format, passes no secret without NPMRC and skips the builds with SKIP_BUILD', () => {
    const skipped = dryRun({ CONTAINER_ENGINE: 'docker', SKIP_BUILD: '1' }).lines;
    expect(skipped.some((l) => l.includes(' build '))).toBe(false);
    expect(skipped[0]).toMatch(/^\$ docker compose -p vault-smoke .* up -d --no-build$/);
    const built = dryRun({ CONTAINER_ENGINE: 'docker' });
    expect(built.out[0]).toBe('deploy:smoke: docker (dry run) builds the images; docker compose (dry run) runs the stack');
    expect(built.lines[0]).toBe('$ docker build -f deploy/docker/Dockerfile --build-arg APP=gateway -t vault/gateway:smoke .');
  });

  it('runs docker-compose 1.29 against podman with -p, and publishes the gateway on the SMOKE_*_PORT host ports', () => {
    const { status, out, lines } = dryRun({
      CONTAINER_ENGINE: 'podman',
      CONTAINER_COMPOSE: 'docker-compose',
      DOCKER_HOST: 'unix:///run/vaultpod/podman.sock',
      SMOKE_HTTPS_PORT: '18443',
      SMOKE_HTTP_PORT: '18080',
      SKIP_BUILD: '1',
      KEEP: '1',
    });
    expect(status).toBe(0);
    expect(out[0]).toBe(
      'deploy:smoke: podman (dry run) builds the images (--format docker); docker-compose (dry run) runs the stack through DOCKER_HOST=unix:///run/vaultpod/podman.sock',
    );
    expect(lines).toHaveLength(1);
    const envFile = /--env-file (\S+)/.exec(lines[0])?.[1] ?? '';
    expect(lines[0]).toBe(`$ docker-compose -p vault-smoke -f docker-compose.yml --env-file ${envFile} up -d --no-build`);
    expect(out.join('\n')).toContain(
      `left running: DOCKER_HOST=unix:///run/vaultpod/podman.sock docker-compose -p vault-smoke -f docker-compose.yml --env-file ${envFile} down -v stops it`,
    );
    try {
      const env = fs.readFileSync(envFile, 'utf8');
      expect(env).toMatch(/^GATEWAY_HTTPS_PORT=18443$/m);
      expect(env).toMatch(/^GATEWAY_HTTP_PORT=18080$/m);
      expect(env).toMatch(/^VAULT_TAG=smoke$/m);
      expect(env).toMatch(/^POSTGRES_PASSWORD=[0-9a-f]{36}$/m);
      expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(path.dirname(envFile), { recursive: true, force: true });
    }
  });

  it('defaults the host ports to 8443 and 8080 and refuses ports that are not', () => {
    const defaults = dryRun({ CONTAINER_ENGINE: 'docker', SKIP_BUILD: '1', KEEP: '1' });
    const envFile = /--env-file (\S+)/.exec(defaults.lines[0])?.[1] ?? '';
    try {
      expect(fs.readFileSync(envFile, 'utf8')).toMatch(/^GATEWAY_HTTPS_PORT=8443\nGATEWAY_HTTP_PORT=8080$/m);
    } finally {
      fs.rmSync(path.dirname(envFile), { recursive: true, force: true });
    }
    const bad = dryRun({ CONTAINER_ENGINE: 'docker', SMOKE_HTTPS_PORT: '84x3' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('SMOKE_HTTPS_PORT must be a port number, not "84x3"');
    const same = dryRun({ CONTAINER_ENGINE: 'docker', SMOKE_HTTPS_PORT: '9000', SMOKE_HTTP_PORT: '9000' });
    expect(same.status).toBe(1);
    expect(same.stderr).toContain('SMOKE_HTTPS_PORT and SMOKE_HTTP_PORT are both 9000');
  });
});
