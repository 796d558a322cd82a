import { byKind, containerEnv, describe, K8sObject, matchesSelector, named } from './k8s-object';
import { Violation, violation } from './violation';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Any = any;

const NAME = 'app.kubernetes.io/name';
const RECORDS = 'records-service';
/** Worker process modes of records-service (`node main.js <mode>`) and the variable that turns the in-process part off. */
export const WORKER_MODES: Record<string, string> = {
  'activity-log-relay': 'ACTIVITY_LOG_RELAY',
  'activity-log-writer': 'ACTIVITY_LOG_WRITER',
};
const HEALTH_PROBES: [string, string][] = [
  ['startupProbe', '/health/live'],
  ['readinessProbe', '/health/ready'],
  ['livenessProbe', '/health/live'],
];

const mainContainer = (w: Any, name?: string) => {
  const containers = (w?.spec?.template?.spec?.containers ?? []) as Any[];
  return containers.find((c) => c.name === name) ?? containers[0];
};

/**
 * Rule `stream-replicas`: JetStream streams and KV buckets are created with the replicas
 * their variable names (default 1): records-service's event streams with
 * EVENTS_STREAM_REPLICAS, every service's and the gateway's KV buckets (revoked tokens,
 * rate-limit counters) with KV_REPLICAS. Each must match the NATS servers of the render
 * (all of them, or 3 to 5 of a larger cluster), else a NATS server lost takes them with it,
 * or they cannot be created at all.
 */
export function checkStreamReplicas(objs: K8sObject[], where: string): Violation[] {
  const nats = named(objs, 'StatefulSet', 'nats');
  if (!nats) return [];
  const servers = Number(nats.spec?.replicas ?? 1);
  const wanted = servers >= 3 ? `${Math.min(servers, 5) === 3 ? '3' : `3 to ${Math.min(servers, 5)}`}` : String(servers);
  const checks: [string, string][] = [
    [RECORDS, 'EVENTS_STREAM_REPLICAS'],
    ...['gateway', 'developer-service', 'user-service', RECORDS].map((app): [string, string] => [app, 'KV_REPLICAS']),
  ];
  const out: Violation[] = [];
  for (const [app, variable] of checks) {
    const dep = named(objs, 'Deployment', app);
    if (!dep) continue;
    const raw = containerEnv(objs, mainContainer(dep, app))[variable];
    const replicas = raw === undefined || raw === '' ? 1 : Number(raw);
    const ok = servers >= 3 ? replicas >= 3 && replicas <= Math.min(servers, 5) : replicas === servers;
    if (!ok) {
      out.push(
        violation(
          `${where} Deployment/${app}`,
          'stream-replicas',
          `${variable} is ${raw === undefined ? 'unset (1)' : raw} but NATS runs ${servers} server(s): set it to ${wanted} (platform.env)`,
        ),
      );
    }
  }
  return out;
}

/**
 * Rule `file-storage-replicas`: records-service with the filesystem adapter keeps its
 * files on a volume every replica must see. More than one replica (HPA maxReplicas or
 * spec.replicas) needs a ReadWriteMany claim; on a ReadWriteOnce claim it runs one pod and
 * its update must not surge a second (maxSurge 0 or Recreate), which could not mount it;
 * every other Deployment mounting that claim (the event pipeline, the webhook dispatcher)
 * must not surge either and must be scheduled on the API pod's node (a required podAffinity
 * to records-service's API pods on kubernetes.io/hostname).
 */
export function checkFileStorageReplicas(objs: K8sObject[], where: string): Violation[] {
  const dep = named(objs, 'Deployment', RECORDS);
  if (!dep) return [];
  const container = mainContainer(dep, RECORDS);
  const env = containerEnv(objs, container);
  if ((env['FILE_STORAGE'] ?? 'fs') !== 'fs') return [];
  const at = `${where} Deployment/${RECORDS}`;
  const dir = env['FILE_STORAGE_DIR'] ?? '.data/files';
  const mount = ((container?.volumeMounts ?? []) as Any[]).find(
    (m) => dir === m.mountPath || dir.startsWith(`${String(m.mountPath).replace(/\/$/, '')}/`),
  );
  const volume = mount && ((dep.spec?.template?.spec?.volumes ?? []) as Any[]).find((v) => v.name === mount.name);
  if (!volume)
    return [
      violation(
        at,
        'file-storage-replicas',
        `FILE_STORAGE=fs but FILE_STORAGE_DIR ${dir} is on no volume: files would be lost with the pod`,
      ),
    ];
  if (!volume.persistentVolumeClaim)
    return [
      violation(
        at,
        'file-storage-replicas',
        `FILE_STORAGE_DIR ${dir} is on volume "${volume.name}", not a PersistentVolumeClaim`,
      ),
    ];
  const claimName = volume.persistentVolumeClaim.claimName;
  const claim = named(objs, 'PersistentVolumeClaim', claimName);
  if (!claim) return [];
  const hpa = byKind(objs, 'HorizontalPodAutoscaler').find(
    (h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec?.scaleTargetRef?.name === RECORDS,
  );
  const most = Math.max(Number(hpa?.spec?.maxReplicas ?? 0), Number(dep.spec?.replicas ?? 1));
  const modes = (claim.spec?.accessModes ?? []) as string[];
  if (modes.includes('ReadWriteMany')) return [];
  const out: Violation[] = [];
  if (most > 1) {
    out.push(
      violation(
        at,
        'file-storage-replicas',
        `up to ${most} replicas share the files on PersistentVolumeClaim/${claimName} (${modes.join(', ') || 'no access mode'}): use ReadWriteMany, FILE_STORAGE=s3, or maxReplicas 1`,
      ),
    );
  }
  if (surges(dep)) {
    out.push(
      violation(
        at,
        'file-storage-replicas',
        `PersistentVolumeClaim/${claimName} is not ReadWriteMany: an update must not surge a pod beside the running one (maxSurge 0 or Recreate)`,
      ),
    );
  }
  const mounting = byKind(objs, 'Deployment').filter(
    (d) =>
      d !== dep &&
      ((d.spec?.template?.spec?.volumes ?? []) as Any[]).some((v) => v.persistentVolumeClaim?.claimName === claimName),
  );
  const apiPods = (dep.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  for (const other of mounting) {
    const fail = (message: string) => out.push(violation(`${where} ${describe(other)}`, 'file-storage-replicas', message));
    if (surges(other))
      fail(`mounts PersistentVolumeClaim/${claimName} (not ReadWriteMany): an update must not surge (maxSurge 0 or Recreate)`);
    const pinned = (
      (other.spec?.template?.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Any[]
    ).some((term) => term.topologyKey === 'kubernetes.io/hostname' && matchesSelector(term.labelSelector, apiPods));
    if (!pinned)
      fail(
        `mounts PersistentVolumeClaim/${claimName} (not ReadWriteMany): it must run on the node of ${RECORDS}'s pod (required podAffinity on kubernetes.io/hostname)`,
      );
  }
  return out;
}

/** Whether an update of the Deployment may start a pod beside the running one. */
function surges(dep: Any): boolean {
  const strategy = dep.spec?.strategy ?? {};
  const surge = strategy.type === 'Recreate' ? 0 : (strategy.rollingUpdate?.maxSurge ?? '25%');
  return surge !== 0 && surge !== '0' && surge !== '0%';
}

/**
 * Rule `worker-deployments`: a Deployment running a records-service worker process
 * (`node main.js activity-log-relay|activity-log-writer`) sets WORKER_HEALTH_PORT to one of
 * its container ports and probes /health/live (startup, liveness) and /health/ready
 * (readiness) there; runs records-service's image; records-service then has the part off
 * (ACTIVITY_LOG_RELAY / ACTIVITY_LOG_WRITER = off). The NetworkPolicies of NATS and
 * PostgreSQL in the render admit the pods of every records-service Deployment but the API's
 * (its workers, the event pipeline, the webhook dispatcher: the API's are checked with the
 * other modules').
 */
export function checkWorkers(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  const records = named(objs, 'Deployment', RECORDS);
  const recordsContainer = records && mainContainer(records, RECORDS);
  for (const dep of byKind(objs, 'Deployment')) {
    const container = mainContainer(dep);
    const argv = [...(container?.command ?? []), ...(container?.args ?? [])].map(String);
    const mode = argv.find((a) => a in WORKER_MODES);
    const labels = (dep.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
    const pipeline = labels[NAME] === RECORDS && labels['app.kubernetes.io/component'] !== 'api';
    if (!mode && !pipeline) continue;
    const at = `${where} ${describe(dep)}`;
    const fail = (message: string) => out.push(violation(at, 'worker-deployments', message));
    for (const backend of unadmitted(objs, labels))
      fail(`no NetworkPolicy of ${backend} admits its pods (${labels[NAME]}, ${labels['app.kubernetes.io/component']})`);
    if (!mode) continue;
    const env = containerEnv(objs, container);
    const port = Number(env['WORKER_HEALTH_PORT']);
    const ports = (container.ports ?? []) as Any[];
    const healthPort = ports.find((p) => p.containerPort === port);
    if (!env['WORKER_HEALTH_PORT'] || !healthPort)
      fail(`WORKER_HEALTH_PORT must be set to one of its container ports (${env['WORKER_HEALTH_PORT'] ?? 'unset'})`);
    for (const [probe, path] of HEALTH_PROBES) {
      const get = container[probe]?.httpGet;
      if (!get) fail(`${probe} (httpGet) is missing`);
      else if (get.path !== path) fail(`${probe} must probe ${path}`);
      else if (healthPort && get.port !== healthPort.containerPort && get.port !== healthPort.name)
        fail(`${probe} must target WORKER_HEALTH_PORT (${port})`);
    }
    if (recordsContainer) {
      if (container.image !== recordsContainer.image)
        fail(`image ${container.image} differs from records-service's ${recordsContainer.image}`);
      const flag = WORKER_MODES[mode];
      if (containerEnv(objs, recordsContainer)[flag] !== 'off') {
        out.push(
          violation(
            `${where} Deployment/${RECORDS}`,
            'worker-deployments',
            `${flag} must be "off": ${describe(dep)} runs the ${mode} (it would run twice)`,
          ),
        );
      }
    }
  }
  return out;
}

/** The backends (NATS, PostgreSQL) of the render whose NetworkPolicies select them but admit no pod with `labels`. */
function unadmitted(objs: K8sObject[], labels: Record<string, string>): string[] {
  return ['nats', 'postgres'].filter((backend) => {
    const servers = [...byKind(objs, 'StatefulSet'), ...byKind(objs, 'Deployment')].filter((s) => s.metadata?.name === backend);
    const serverLabels = servers.map((s) => (s.spec?.template?.metadata?.labels ?? {}) as Record<string, string>);
    const selecting = byKind(objs, 'NetworkPolicy').filter(
      (p) =>
        (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress') &&
        serverLabels.some((l) => matchesSelector(p.spec?.podSelector, l)),
    );
    return (
      selecting.length > 0 &&
      !selecting.some((p) =>
        ((p.spec?.ingress ?? []) as Any[]).some(
          (rule) =>
            (rule.from ?? []).length === 0 ||
            (rule.from as Any[]).some(
              (peer) => peer.podSelector && !peer.namespaceSelector && matchesSelector(peer.podSelector, labels),
            ),
        ),
      )
    );
  });
}

/**
 * Rule `rollout-watch`: the rollout script must notice a failed migration Job at once,
 * by watching its Failed condition, not only wait for completion until a timeout.
 */
export function checkRolloutScript(text: string, where: string): Violation[] {
  const code = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n');
  const watchesFailure =
    /condition=failed/i.test(code) ||
    /conditions\b[^\n]*\bFailed\b|\bFailed\b[^\n]*conditions/.test(code) ||
    /type==["']?Failed/.test(code) ||
    /"\s*Failed\s*"|\*" Failed "\*/.test(code);
  if (!/\bjob\b/i.test(code)) return [violation(where, 'rollout-watch', 'no migration Job is run before the Deployment')];
  if (!watchesFailure) {
    return [
      violation(
        where,
        'rollout-watch',
        'the migration Job is waited for without watching its Failed condition: a failed migration is noticed only at the timeout',
      ),
    ];
  }
  return [];
}
