import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { K8sObject } from './k8s-object';
import { renderKustomization } from './kustomize';
import { checkNetworkPolicies } from './network-policy-rules';
import { containerEnv } from './k8s-object';
import { checkFileStorageReplicas, checkRolloutScript, checkStreamReplicas, checkWorkers } from './operability-rules';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
const K8S = path.join(__dirname, '../../../deploy/k8s');
const OVERLAYS = path.join(K8S, 'overlays');
const PROD = renderKustomization(path.join(OVERLAYS, 'prod'));
const DEV = renderKustomization(path.join(OVERLAYS, 'dev'));
const DEV_RECORDS = renderKustomization(path.join(OVERLAYS, 'dev/records-service'));

/** Renders `env` (the whole environment) with an optional Component enabled, as a team would. */
function withComponent(env: string, component: string): K8sObject[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workers-'));
  try {
    fs.cpSync(K8S, dir, { recursive: true });
    const file = path.join(dir, 'overlays', env, 'kustomization.yaml');
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace('components:\n', `components:\n  - ../../components/${component}\n`),
    );
    return renderKustomization(path.dirname(file));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const PROD_WORKERS = withComponent('prod', 'activity-log-workers');
const DEV_WORKERS = withComponent('dev', 'activity-log-workers');

const edit = (objs: K8sObject[], kind: string, name: string, change: (o: any) => void) => {
  const copy = structuredClone(objs);
  const target = copy.find((o) => o.kind === kind && o.metadata?.name?.startsWith(name)) as any;
  expect(target).toBeDefined();
  change(target);
  return copy;
};
const container = (d: any) => d.spec.template.spec.containers[0];
const messages = (violations: { where: string; message: string }[]) => violations.map((v) => `${v.where}: ${v.message}`);

describe('stream-replicas', () => {
  it('accepts 3 replicas on the 3 prod NATS servers and 1 on the single dev server', () => {
    expect(checkStreamReplicas(PROD, 'prod')).toEqual([]);
    expect(checkStreamReplicas(DEV, 'dev')).toEqual([]);
    const records = PROD.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'records-service');
    expect(containerEnv(PROD, container(records))['EVENTS_STREAM_REPLICAS']).toBe('3');
  });

  it('refuses streams with fewer replicas than a NATS cluster has servers, or more than servers', () => {
    const unset = edit(PROD, 'ConfigMap', 'vault-platform', (c) => delete c.data.EVENTS_STREAM_REPLICAS);
    expect(messages(checkStreamReplicas(unset, 'prod'))).toEqual([
      'prod Deployment/records-service: EVENTS_STREAM_REPLICAS is unset (1) but NATS runs 3 server(s): set it to 3 (platform.env)',
    ]);
    const one = edit(PROD, 'ConfigMap', 'vault-platform', (c) => (c.data.EVENTS_STREAM_REPLICAS = '1'));
    expect(checkStreamReplicas(one, 'prod').map((v) => v.rule)).toEqual(['stream-replicas']);
    const tooMany = edit(DEV, 'ConfigMap', 'vault-platform', (c) => (c.data.EVENTS_STREAM_REPLICAS = '3'));
    expect(messages(checkStreamReplicas(tooMany, 'dev'))).toEqual([
      'dev Deployment/records-service: EVENTS_STREAM_REPLICAS is 3 but NATS runs 1 server(s): set it to 1 (platform.env)',
    ]);
    // A Deployment env literal wins over the ConfigMap.
    const literal = edit(PROD, 'Deployment', 'records-service', (d) =>
      container(d).env.push({ name: 'EVENTS_STREAM_REPLICAS', value: '2' }),
    );
    expect(checkStreamReplicas(literal, 'prod').map((v) => v.rule)).toEqual(['stream-replicas']);
  });

  it('refuses KV buckets of any module with replicas that do not match the NATS servers', () => {
    const kvUnset = edit(PROD, 'ConfigMap', 'vault-platform', (c) => delete c.data.KV_REPLICAS);
    expect(messages(checkStreamReplicas(kvUnset, 'prod'))).toEqual(
      ['gateway', 'developer-service', 'user-service', 'records-service'].map(
        (app) => `prod Deployment/${app}: KV_REPLICAS is unset (1) but NATS runs 3 server(s): set it to 3 (platform.env)`,
      ),
    );
    const oneApp = edit(PROD, 'Deployment', 'gateway', (d) => container(d).env.push({ name: 'KV_REPLICAS', value: '1' }));
    expect(messages(checkStreamReplicas(oneApp, 'prod'))).toEqual([
      'prod Deployment/gateway: KV_REPLICAS is 1 but NATS runs 3 server(s): set it to 3 (platform.env)',
    ]);
  });
});

describe('file-storage-replicas', () => {
  it('accepts the ReadWriteMany claim (prod) and one non-surging replica on ReadWriteOnce (dev)', () => {
    expect(checkFileStorageReplicas(PROD, 'prod')).toEqual([]);
    expect(checkFileStorageReplicas(DEV, 'dev')).toEqual([]);
    expect(checkFileStorageReplicas(DEV_RECORDS, 'dev/records-service')).toEqual([]);
    const hpa: any = DEV_RECORDS.find((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpa.spec.maxReplicas).toBe(1);
  });

  it('refuses more than one replica or a surge on a ReadWriteOnce claim', () => {
    const two = edit(DEV_RECORDS, 'HorizontalPodAutoscaler', 'records-service', (h) => (h.spec.maxReplicas = 2));
    expect(messages(checkFileStorageReplicas(two, 'dev/records-service'))).toEqual([
      'dev/records-service Deployment/records-service: up to 2 replicas share the files on PersistentVolumeClaim/records-service-files (ReadWriteOnce): use ReadWriteMany, FILE_STORAGE=s3, or maxReplicas 1',
    ]);
    const rwoProd = edit(PROD, 'PersistentVolumeClaim', 'records-service-files', (c) => (c.spec.accessModes = ['ReadWriteOnce']));
    expect(messages(checkFileStorageReplicas(rwoProd, 'prod'))).toEqual([
      expect.stringContaining('up to 10 replicas share the files'),
      expect.stringContaining('must not surge a pod'),
      // the event pipeline mounts the claim too: on the API pod's node, without a surge
      'prod Deployment/records-service-events: mounts PersistentVolumeClaim/records-service-files (not ReadWriteMany): an update must not surge (maxSurge 0 or Recreate)',
      "prod Deployment/records-service-events: mounts PersistentVolumeClaim/records-service-files (not ReadWriteMany): it must run on the node of records-service's pod (required podAffinity on kubernetes.io/hostname)",
    ]);
    const surge = edit(DEV_RECORDS, 'Deployment', 'records-service', (d) => (d.spec.strategy.rollingUpdate.maxSurge = 1));
    expect(checkFileStorageReplicas(surge, 'dev').map((v) => v.rule)).toEqual(['file-storage-replicas']);
    const recreate = edit(surge, 'Deployment', 'records-service', (d) => (d.spec.strategy = { type: 'Recreate' }));
    expect(checkFileStorageReplicas(recreate, 'dev')).toEqual([]);
  });

  it('accepts any replica count with the S3 adapter, and refuses fs storage off a volume', () => {
    const two = edit(DEV_RECORDS, 'HorizontalPodAutoscaler', 'records-service', (h) => (h.spec.maxReplicas = 4));
    const s3 = edit(two, 'ConfigMap', 'records-service-config', (c) => (c.data.FILE_STORAGE = 's3'));
    expect(checkFileStorageReplicas(s3, 'dev')).toEqual([]);
    const noVolume = edit(
      DEV_RECORDS,
      'Deployment',
      'records-service',
      (d) => (container(d).volumeMounts = container(d).volumeMounts.filter((m: any) => m.name !== 'files')),
    );
    expect(checkFileStorageReplicas(noVolume, 'dev').map((v) => v.message)).toEqual([expect.stringContaining('is on no volume')]);
  });
});

describe('worker-deployments (components/activity-log-workers)', () => {
  const relay = 'records-service-activity-log-relay';
  const writer = 'records-service-activity-log-writer';

  it('accepts the Component in both environments, policies included', () => {
    for (const [env, objs] of [
      ['prod', PROD_WORKERS],
      ['dev', DEV_WORKERS],
    ] as const) {
      expect(
        objs
          .filter((o) => o.kind === 'Deployment' && o.metadata?.name?.includes('activity-log'))
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual([relay, writer]);
      expect(checkWorkers(objs, env)).toEqual([]);
      expect(checkNetworkPolicies(objs, env)).toEqual([]);
      const records = objs.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'records-service');
      expect(containerEnv(objs, container(records))).toMatchObject({ ACTIVITY_LOG_RELAY: 'off', ACTIVITY_LOG_WRITER: 'off' });
      const worker: any = objs.find((o) => o.metadata?.name === relay);
      expect(container(worker).image).toBe(container(records).image);
      expect(worker.metadata.namespace).toBe(env === 'prod' ? 'vault' : 'vault-dev');
    }
    // Without the Component nothing is checked.
    expect(checkWorkers(PROD, 'prod')).toEqual([]);
  });

  it('requires WORKER_HEALTH_PORT on a container port and the three probes there', () => {
    const noPort = edit(
      PROD_WORKERS,
      'Deployment',
      relay,
      (d) => (container(d).env = container(d).env.filter((e: any) => e.name !== 'WORKER_HEALTH_PORT')),
    );
    expect(messages(checkWorkers(noPort, 'prod'))).toEqual([
      `prod Deployment/${relay}: WORKER_HEALTH_PORT must be set to one of its container ports (unset)`,
    ]);
    const noReadiness = edit(PROD_WORKERS, 'Deployment', writer, (d) => delete container(d).readinessProbe);
    expect(messages(checkWorkers(noReadiness, 'prod'))).toEqual([
      `prod Deployment/${writer}: readinessProbe (httpGet) is missing`,
    ]);
    const wrongPath = edit(
      PROD_WORKERS,
      'Deployment',
      writer,
      (d) => (container(d).livenessProbe.httpGet.path = '/health/ready'),
    );
    expect(messages(checkWorkers(wrongPath, 'prod'))).toEqual([
      `prod Deployment/${writer}: livenessProbe must probe /health/live`,
    ]);
    const otherPort = edit(PROD_WORKERS, 'Deployment', writer, (d) => (container(d).startupProbe.httpGet.port = 3003));
    expect(messages(checkWorkers(otherPort, 'prod'))).toEqual([
      `prod Deployment/${writer}: startupProbe must target WORKER_HEALTH_PORT (8081)`,
    ]);
  });

  it('requires records-service to leave the worker part off and the same image', () => {
    const inline = edit(
      PROD_WORKERS,
      'Deployment',
      'records-service',
      (d) => (container(d).env = container(d).env.filter((e: any) => e.name !== 'ACTIVITY_LOG_WRITER')),
    );
    expect(messages(checkWorkers(inline, 'prod'))).toEqual([
      `prod Deployment/records-service: ACTIVITY_LOG_WRITER must be "off": Deployment/${writer} runs the activity-log-writer (it would run twice)`,
    ]);
    const image = edit(
      PROD_WORKERS,
      'Deployment',
      relay,
      (d) => (container(d).image = 'registry.example.com/vault/records-service:0.9.0'),
    );
    expect(checkWorkers(image, 'prod').map((v) => v.message)).toEqual([
      expect.stringMatching(/^image .*0\.9\.0 differs from records-service's/),
    ]);
  });

  it('requires the NATS and PostgreSQL policies to admit the workers and the event pipeline', () => {
    const natsApiOnly = edit(DEV_WORKERS, 'NetworkPolicy', 'nats', (p) => p.spec.ingress[0].from.splice(1, 1));
    expect(messages(checkWorkers(natsApiOnly, 'dev')).sort()).toEqual([
      `dev Deployment/${relay}: no NetworkPolicy of nats admits its pods (records-service, activity-log-relay)`,
      `dev Deployment/${writer}: no NetworkPolicy of nats admits its pods (records-service, activity-log-writer)`,
      'dev Deployment/records-service-events: no NetworkPolicy of nats admits its pods (records-service, event-pipeline)',
    ]);
    const postgres = edit(
      DEV_WORKERS,
      'NetworkPolicy',
      'postgres',
      (p) => (p.spec.ingress[0].from[1].podSelector.matchExpressions[0].values = ['activity-log-relay']),
    );
    expect(messages(checkWorkers(postgres, 'dev')).sort()).toEqual([
      `dev Deployment/${writer}: no NetworkPolicy of postgres admits its pods (records-service, activity-log-writer)`,
      'dev Deployment/records-service-events: no NetworkPolicy of postgres admits its pods (records-service, event-pipeline)',
    ]);
  });
});

describe('rollout-watch', () => {
  const SCRIPT = path.join(K8S, 'rollout.sh');
  const text = fs.readFileSync(SCRIPT, 'utf8');

  it('accepts the repository rollout.sh and refuses a wait for completion alone', () => {
    expect(checkRolloutScript(text, 'rollout.sh')).toEqual([]);
    const waitOnly =
      'kubectl apply -k "$dir" -l app.kubernetes.io/component=migration\nkubectl -n "$ns" wait --for=condition=complete "job/$m-migrate" --timeout=10m\n# Failed conditions are not watched\n';
    expect(checkRolloutScript(waitOnly, 'rollout.sh').map((v) => v.rule)).toEqual(['rollout-watch']);
    expect(checkRolloutScript(waitOnly + 'kubectl wait --for=condition=failed "job/$m-migrate"\n', 'rollout.sh')).toEqual([]);
  });

  const MIGRATION_APPLY = 'apply -k overlays/prod/user-service -l app.kubernetes.io/component=migration';

  /**
   * Runs rollout.sh for `module` against a stand-in kubectl whose migration Job ends as
   * `outcome`, whose apply holds `workloads` and whose rollout of `failing` does not finish.
   */
  function rollout(
    outcome: 'Complete' | 'Failed' | 'ImagePullBackOff',
    { module = 'user-service', workloads = ['deployment.apps/user-service'], failing = '' } = {},
  ) {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'kubectl-'));
    const log = path.join(bin, 'calls.log');
    const polls = path.join(bin, 'polls');
    fs.writeFileSync(
      path.join(bin, 'kubectl'),
      `#!/usr/bin/env bash
echo "$*" >> "${log}"
case "$*" in
  *"get job"*"conditions[?(@.status"*)
    n=$(cat "${polls}" 2>/dev/null || echo 0); echo $((n + 1)) > "${polls}"
    if [ "$n" -ge 2 ] && [ "${outcome}" != ImagePullBackOff ]; then printf '%s ' "${outcome}"; fi ;;
  *"get job"*"type==\\"Failed\\""*) printf 'Job has reached the specified backoff limit' ;;
  *"get job"*".status.failed"*) n=$(cat "${polls}"); [ "${outcome}" = Failed ] && echo $((n > 1 ? 1 : 0)) ;;
  *"get pods"*) [ "${outcome}" = ImagePullBackOff ] && printf 'ImagePullBackOff ' ;;
  *"logs"*) echo "migration error: relation already exists" ;;
  *"apply -k"*"-o name"*) printf '%s\\n' configmap/${module}-config ${workloads.join(' ')} service/${module} ;;
  *"rollout status ${failing || '-'} "*) echo "error: deployment exceeded its progress deadline" >&2; exit 1 ;;
esac
exit 0
`,
      { mode: 0o755 },
    );
    const started = Date.now();
    const r = spawnSync('bash', [SCRIPT, 'prod', module], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}`, ROLLOUT_POLL_SECONDS: '0.1', ROLLOUT_TIMEOUT: '60s' },
    });
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n');
    fs.rmSync(bin, { recursive: true, force: true });
    return { ...r, calls, seconds: (Date.now() - started) / 1000 };
  }

  it('rolls out after the migration Job completes', () => {
    const r = rollout('Complete');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('job/user-service-migrate complete');
    expect(r.calls.filter((c) => c.startsWith('apply -k'))).toEqual([
      'apply -k overlays/prod/user-service -l app.kubernetes.io/component=migration',
      'apply -k overlays/prod/user-service -o name',
    ]);
    expect(r.calls.filter((c) => c.includes('rollout status'))).toEqual([
      '-n vault rollout status deployment.apps/user-service --timeout=60s',
    ]);
  });

  it("waits for every Deployment of the module, records-service's event pipeline and its Components' included", () => {
    const workloads = [
      'deployment.apps/records-service',
      'deployment.apps/records-service-events',
      'deployment.apps/records-service-webhooks',
    ];
    const r = rollout('Complete', { module: 'records-service', workloads });
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => c.includes('rollout status'))).toEqual(
      workloads.map((w) => `-n vault rollout status ${w} --timeout=60s`),
    );
    // a pipeline whose rollout does not finish fails the script, whatever the API's did
    const stuck = rollout('Complete', {
      module: 'records-service',
      workloads,
      failing: 'deployment.apps/records-service-events',
    });
    expect(stuck.status).toBe(1);
    expect(stuck.stderr).toContain('exceeded its progress deadline');
  });

  it('stops at once on a failed Job, with its log, before the Deployment changes', () => {
    const r = rollout('Failed');
    expect(r.status).toBe(1);
    expect(r.seconds).toBeLessThan(10);
    expect(r.stderr).toContain('job/user-service-migrate failed: Job has reached the specified backoff limit');
    expect(r.stderr).toContain('migration error: relation already exists');
    expect(r.stderr).toContain('== user-service: migration failed, user-service left as it was');
    // only the migration Job was applied, nothing of the Deployment
    expect(r.calls.filter((c) => c.startsWith('apply -k'))).toEqual([MIGRATION_APPLY]);
    expect(r.calls.some((c) => c.includes('rollout status'))).toBe(false);
  });

  it('stops at once when the Job pod cannot start', () => {
    const r = rollout('ImagePullBackOff');
    expect(r.status).toBe(1);
    expect(r.seconds).toBeLessThan(10);
    expect(r.stderr).toContain('job/user-service-migrate cannot start its pod (ImagePullBackOff');
    // only the migration Job was applied, nothing of the Deployment
    expect(r.calls.filter((c) => c.startsWith('apply -k'))).toEqual([MIGRATION_APPLY]);
  });
});

describe('dev-secrets.sh without arguments', () => {
  it('creates a bootstrap with a tenant, an application and a user, and prints the credentials', () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'kubectl-'));
    const log = path.join(bin, 'calls.log');
    // No Secret exists yet; `create secret` arguments are recorded, one per line.
    fs.writeFileSync(
      path.join(bin, 'kubectl'),
      `#!/usr/bin/env bash\nfor a in "$@"; do printf '%s\\n' "$a"; done >> "${log}"; echo "--" >> "${log}"\ncase "$*" in *"get secret"*|*"get namespace"*) exit 1 ;; esac\nexit 0\n`,
      { mode: 0o755 },
    );
    const r = spawnSync('bash', [path.join(K8S, 'dev-secrets.sh')], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}`, DEV_PASSWORD: 'chosen "password"' },
    });
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    fs.rmSync(bin, { recursive: true, force: true });
    expect(r.status).toBe(0);
    const literal = lines.find((l) => l.startsWith('--from-literal=bootstrap.json='));
    expect(literal).toBeDefined();
    const bootstrap = JSON.parse(String(literal).slice('--from-literal=bootstrap.json='.length));
    expect(bootstrap).toEqual({
      tenants: [
        {
          id: 'dev',
          name: 'Development',
          applications: [{ clientId: 'dev-app', clientSecret: expect.stringMatching(/^[A-Za-z0-9]{32}$/) }],
          users: [{ username: 'dev@vault.localhost', password: 'chosen "password"' }],
        },
      ],
    });
    expect(r.stdout).toContain(`client secret: ${bootstrap.tenants[0].applications[0].clientSecret}`);
    expect(r.stdout).toContain('/tenant-id/dev/applications/client-id/dev-app/auth');
  });
});

describe('components/webhook-dispatcher', () => {
  const ROLES = ['ACTIVITY_LOG_RELAY', 'ACTIVITY_LOG_WRITER', 'WEBHOOK_DISPATCHER', 'CHANGE_FEED_WRITER'];
  /** The Deployments of records-service's image that run each part of the event pipeline (a part is on unless `off`). */
  const runners = (objs: K8sObject[]) =>
    Object.fromEntries(
      ROLES.map((role) => [
        role,
        objs
          .filter((o: any) => o.kind === 'Deployment' && o.metadata?.labels?.['app.kubernetes.io/name'] === 'records-service')
          .filter((o) => containerEnv(objs, container(o))[role] !== 'off')
          .map((o) => o.metadata?.name)
          .sort(),
      ]),
    );

  it('moves the fan-out and dispatcher alone to records-service-webhooks, in both environments', () => {
    expect(runners(PROD)).toEqual({
      ACTIVITY_LOG_RELAY: ['records-service-events'],
      ACTIVITY_LOG_WRITER: ['records-service-events'],
      WEBHOOK_DISPATCHER: ['records-service-events'],
      CHANGE_FEED_WRITER: ['records-service-events'],
    });
    for (const env of ['prod', 'dev']) {
      const objs = withComponent(env, 'webhook-dispatcher');
      expect(runners(objs)).toEqual({
        ACTIVITY_LOG_RELAY: ['records-service-events'],
        ACTIVITY_LOG_WRITER: ['records-service-events'],
        WEBHOOK_DISPATCHER: ['records-service-webhooks'],
        CHANGE_FEED_WRITER: ['records-service-events'],
      });
      const webhooks: any = objs.find((o) => o.metadata?.name === 'records-service-webhooks');
      const events: any = objs.find((o) => o.metadata?.name === 'records-service-events');
      expect(container(webhooks).image).toBe(container(events).image);
      expect(containerEnv(objs, container(webhooks))).toMatchObject({ SEARCH_EXTRACTION: 'off', DB_MIGRATE_ON_START: 'false' });
      expect(webhooks.spec.selector.matchLabels['app.kubernetes.io/component']).toBe('webhook-dispatcher');
      // admitted by NATS (and dev's PostgreSQL), nothing admitted to it, the shared volume mounted safely
      expect(checkWorkers(objs, env)).toEqual([]);
      expect(checkNetworkPolicies(objs, env)).toEqual([]);
      expect(checkFileStorageReplicas(objs, env)).toEqual([]);
      const nats: any = objs.find((o) => o.kind === 'NetworkPolicy' && o.metadata?.name === 'nats');
      expect(JSON.stringify(nats.spec.ingress)).toContain('webhook-dispatcher');
      if (env === 'dev') {
        // on the API pod's node (the files volume is ReadWriteOnce there), replaced rather than surged
        expect(webhooks.spec.strategy.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
        const anywhere = edit(objs, 'Deployment', 'records-service-webhooks', (d) => delete d.spec.template.spec.affinity);
        expect(messages(checkFileStorageReplicas(anywhere, 'dev'))).toEqual([
          "dev Deployment/records-service-webhooks: mounts PersistentVolumeClaim/records-service-files (not ReadWriteMany): it must run on the node of records-service's pod (required podAffinity on kubernetes.io/hostname)",
        ]);
        const noDatabase = edit(
          objs,
          'NetworkPolicy',
          'postgres',
          (p) =>
            (p.spec.ingress[0].from[1].podSelector.matchExpressions[0].values = [
              'event-pipeline',
              'activity-log-relay',
              'activity-log-writer',
            ]),
        );
        expect(messages(checkWorkers(noDatabase, 'dev'))).toEqual([
          'dev Deployment/records-service-webhooks: no NetworkPolicy of postgres admits its pods (records-service, webhook-dispatcher)',
        ]);
      }
    }
  });
});
