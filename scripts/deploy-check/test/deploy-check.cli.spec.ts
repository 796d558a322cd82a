import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.join(__dirname, '../../..');
const CLI = path.join(REPO, 'scripts/deploy-check/run.cjs');

/** A copy of the repository's deployment files to break without touching the real ones. */
function copyDeployFiles(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-check-'));
  for (const item of ['deploy', 'docker-compose.yml', '.dockerignore', 'docs/deploy.md']) {
    fs.cpSync(path.join(REPO, item), path.join(root, item), { recursive: true });
  }
  return root;
}

function edit(root: string, file: string, from: string, to: string) {
  const full = path.join(root, file);
  const text = fs.readFileSync(full, 'utf8');
  expect(text).toContain(from);
  fs.writeFileSync(full, text.replace(from, to));
}

function run(root: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, '--root', root], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm run deploy:check', () => {
  let root: string;
  beforeEach(() => (root = copyDeployFiles()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('passes on the repository files and says what it checked', () => {
    const r = run(root);
    expect(r.stderr).not.toMatch(/\[[a-z-]+\]|violation/);
    expect(r.stdout).toContain('checked Dockerfile deploy/docker/Dockerfile');
    expect(r.stdout).toMatch(/checked compose docker-compose\.yml \(\d+ services\)/);
    expect(r.stdout).toMatch(/checked \d+ kustomizations rendered/);
    expect(r.stdout).toContain('deploy:check passed');
    expect(r.status).toBe(0);
  });

  it('exits non-zero and names every violation', () => {
    // A misspelt field only the strict check sees, and a schema type error.
    edit(root, 'deploy/k8s/base/user-service/deployment.yaml', 'readinessProbe:', 'readinessProbes:');
    edit(root, 'deploy/k8s/base/developer-service/service.yaml', 'port: 3001', 'port: "abc"');
    // An image that would run as root, a secret value in compose.
    edit(root, 'deploy/docker/Dockerfile', '\nUSER node\n', '\n');
    edit(
      root,
      'docker-compose.yml',
      'KEY_ENCRYPTION_SECRET: ${KEY_ENCRYPTION_SECRET:?',
      'KEY_ENCRYPTION_SECRET: literal-${KEY_ENCRYPTION_SECRET:?',
    );
    // The environment no longer matches its modules; a module that cannot be applied alone.
    edit(root, 'deploy/k8s/overlays/prod/kustomization.yaml', '  - ../../base/records-service\n', '');
    fs.rmSync(path.join(root, 'deploy/k8s/overlays/prod/gateway'), { recursive: true });
    // A service reachable from every API pod of the namespace, not only the gateway's.
    edit(root, 'deploy/k8s/base/user-service/networkpolicy.yaml', '              app.kubernetes.io/name: gateway\n', '');

    // Issue 18: each operability rule, broken once.
    edit(root, 'deploy/docker/Dockerfile', 'FROM toolchain AS deps\n', 'FROM toolchain AS deps\nARG APP\n');
    edit(root, 'docker-compose.yml', '\nx-app: &app\n', '\nname: vault\n\nx-app: &app\n');
    edit(root, 'docker-compose.yml', '    restart: unless-stopped\n\n  nats:', '\n  nats:');
    edit(root, 'deploy/k8s/overlays/dev/platform/platform.env', 'EVENTS_STREAM_REPLICAS=1', 'EVENTS_STREAM_REPLICAS=3');
    edit(
      root,
      'deploy/k8s/overlays/dev/platform/kustomization.yaml',
      '      name: records-service\n    patch: |-\n      - op: replace\n        path: /spec/maxReplicas\n        value: 1',
      '      name: records-service\n    patch: |-\n      - op: replace\n        path: /spec/maxReplicas\n        value: 2',
    );
    edit(
      root,
      'deploy/k8s/components/activity-log-workers/writer.yaml',
      '              path: /health/ready',
      '              path: /health/live',
    );
    edit(root, 'deploy/k8s/rollout.sh', '*" Failed "*)', '*" Unknown "*)');
    edit(root, 'deploy/k8s/rollout.sh', 'type=="Failed"', 'type=="Unknown"');

    const r = run(root);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /deploy\/docker\/Dockerfile:\d+: \[build-install\] ARG APP \(line \d+\) comes before the workspace install/,
    );
    expect(r.stderr).toContain('docker-compose.yml name: [compose-version]');
    expect(r.stderr).toContain('docker-compose.yml services.postgres: [restart-policy] no restart policy');
    expect(r.stderr).toContain(
      'deploy/k8s/overlays/dev Deployment/records-service: [stream-replicas] EVENTS_STREAM_REPLICAS is 3 but NATS runs 1 server(s)',
    );
    expect(r.stderr).toContain(
      'deploy/k8s/overlays/dev/records-service Deployment/records-service: [file-storage-replicas] up to 2 replicas',
    );
    expect(r.stderr).toContain(
      'deploy/k8s/overlays/prod (+components/activity-log-workers) Deployment/records-service-activity-log-writer: [worker-deployments] readinessProbe must probe /health/ready',
    );
    expect(r.stderr).toContain('deploy/k8s/rollout.sh: [rollout-watch]');
    expect(r.stderr).toMatch(/deploy:check failed: \d+ violation\(s\)/);
    expect(r.stderr).toMatch(
      /deploy\/k8s\/overlays\/dev\/user-service Deployment\/user-service: \[k8s-unknown-field\] .*readinessProbes/,
    );
    expect(r.stderr).toMatch(/Service\/developer-service: \[k8s-schema\] .*port must be integer/);
    expect(r.stderr).toContain('Deployment/user-service: [probes] readinessProbe (httpGet) is missing');
    expect(r.stderr).toContain('deploy/docker/Dockerfile: [non-root-user]');
    expect(r.stderr).toContain('docker-compose.yml services.developer-service: [no-secret-values] KEY_ENCRYPTION_SECRET');
    expect(r.stderr).toMatch(
      /deploy\/k8s\/overlays\/prod: \[module-alone\] apps\/v1 Deployment vault\/records-service is in a module's render but not in the environment/,
    );
    expect(r.stderr).toContain('deploy/k8s/overlays/prod/gateway: [module-alone] no kustomization to apply gateway alone');
    expect(r.stderr).toMatch(
      /deploy\/k8s\/overlays\/dev NetworkPolicy\/user-service: \[network-policy\] admits .*developer-service \(api\).*; only gateway may call it/,
    );
  });

  it('fails when no kustomize renderer is available', () => {
    const r = run(root, { KUSTOMIZE: path.join(root, 'no-such-kustomize') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no-such-kustomize not found');
  });
});
