import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, '../../deploy-smoke.mjs');

/** `npm run deploy:smoke` cannot run here (no base images); its command plan is checked with --dry-run. */
describe('npm run deploy:smoke --dry-run', () => {
  const plan = (env: Record<string, string>) => {
    const r = spawnSync(process.execPath, [SCRIPT, '--dry-run'], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(r.status).toBe(0);
    return r.stdout.split('\n').filter((l) => l.startsWith('$ '));
  };

  it('builds the four images with the Dockerfile, then starts, and always stops, the compose project', () => {
    const lines = plan({ CONTAINER_ENGINE: 'podman', VAULT_TAG: 't1', NPMRC: '/run/ci.npmrc', NPM_CA: '/run/ca.pem' });
    const apps = ['gateway', 'developer-service', 'user-service', 'records-service'];
    expect(lines.slice(0, 4)).toEqual(
      apps.map((a) => `$ podman build -f deploy/docker/Dockerfile --build-arg APP=${a} -t vault/${a}:t1 --secret id=npmrc,src=/run/ci.npmrc --secret id=npm-ca,src=/run/ca.pem .`),
    );
    expect(lines[4]).toMatch(/^\$ podman compose -p vault-smoke -f docker-compose\.yml --env-file \S+smoke\.env up -d --no-build$/);
    expect(lines[5]).toMatch(/^\$ podman compose -p vault-smoke .* down -v --remove-orphans$/);
    expect(lines).toHaveLength(6);
  });

  it('passes no secret without NPMRC and skips the builds with SKIP_BUILD', () => {
    const lines = plan({ CONTAINER_ENGINE: 'docker', NPMRC: '', NPM_CA: '', SKIP_BUILD: '1', VAULT_TAG: '' });
    expect(lines.some((l) => l.includes(' build '))).toBe(false);
    expect(lines[0]).toMatch(/^\$ docker compose -p vault-smoke .* up -d --no-build$/);
    const built = plan({ CONTAINER_ENGINE: 'docker', NPMRC: '', NPM_CA: '', SKIP_BUILD: '', VAULT_TAG: '' });
    expect(built[0]).toBe('$ docker build -f deploy/docker/Dockerfile --build-arg APP=gateway -t vault/gateway:smoke .');
  });
});
