import { APPS, AppSpec, MODULE_HOST_PREFIXES, migrateName } from './expectations';
import { byKind, describe, K8sObject, named } from './k8s-object';
import { Violation, violation } from './violation';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Any = any;

/** Seconds left for in-flight requests and the NATS drain after preStop and SHUTDOWN_DELAY_MS. */
const DRAIN_MARGIN_SECONDS = 15;

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'Job'];
const SECRET_NAME = /(PASSWORD|SECRET|TOKEN|PRIVATE_KEY|DATABASE_URL|SMTP_URL)/;

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/**
 * Rules every workload of a render follows: pinned images, requests and limits,
 * non-root read-only containers without privilege escalation or capabilities, no
 * service account token, and secret-looking variables only from Secrets. Rendered
 * output must hold no Secret object (the repository keeps no secret values).
 */
export function checkWorkloads(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  for (const o of objs) {
    const at = `${where} ${describe(o)}`;
    if (o.kind === 'Secret')
      out.push(
        violation(at, 'no-secret-values', 'Secrets are created outside the repository (docs/deploy.md), never rendered from it'),
      );
    if (!WORKLOAD_KINDS.includes(o.kind)) continue;
    const pod = (o as Any).spec?.template?.spec ?? {};
    const podSc = pod.securityContext ?? {};
    if (pod.automountServiceAccountToken !== false)
      out.push(violation(at, 'security-context', 'automountServiceAccountToken must be false'));
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const cat = `${at} container ${c.name}`;
      const image = String(c.image ?? '');
      const tag = /:([^/:]+)$/.exec(image)?.[1];
      if (!image.includes('@sha256:') && (!tag || tag === 'latest'))
        out.push(violation(cat, 'pinned-image', `image "${image}" needs a version tag or digest`));
      for (const kind of ['requests', 'limits']) {
        for (const res of ['cpu', 'memory']) {
          if (c.resources?.[kind]?.[res] === undefined)
            out.push(violation(cat, 'resources', `resources.${kind}.${res} is missing`));
        }
      }
      const sc = c.securityContext ?? {};
      if (sc.readOnlyRootFilesystem !== true) out.push(violation(cat, 'security-context', 'readOnlyRootFilesystem must be true'));
      if (sc.allowPrivilegeEscalation !== false)
        out.push(violation(cat, 'security-context', 'allowPrivilegeEscalation must be false'));
      if (!(sc.capabilities?.drop ?? []).includes('ALL'))
        out.push(violation(cat, 'security-context', 'capabilities.drop must include ALL'));
      if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true)
        out.push(violation(cat, 'security-context', 'runAsNonRoot must be true'));
      if ((sc.runAsUser ?? podSc.runAsUser) === 0) out.push(violation(cat, 'security-context', 'runAsUser 0 is root'));
      for (const e of c.env ?? []) {
        if (SECRET_NAME.test(e.name) && e.value !== undefined) {
          out.push(
            violation(cat, 'no-secret-values', `${e.name} has a literal value: read it from a Secret (valueFrom.secretKeyRef)`),
          );
        }
      }
    }
  }
  return out;
}

/**
 * Rules of one app module in a render: its Deployment (probes on the health
 * endpoints, graceful shutdown budget, writable /tmp only), Service, HPA, PDB and,
 * for apps with a database, the migration Job and DB_MIGRATE_ON_START=false.
 */
export function checkApp(objs: K8sObject[], app: AppSpec, where: string): Violation[] {
  const out: Violation[] = [];
  const fail = (what: string, rule: string, message: string) => out.push(violation(`${where} ${what}`, rule, message));
  const dep = named(objs, 'Deployment', app.name);
  if (!dep) {
    fail(`Deployment/${app.name}`, 'module-complete', 'missing');
    return out;
  }
  const at = `Deployment/${app.name}`;
  const pod = dep.spec?.template?.spec ?? {};
  const podLabels = dep.spec?.template?.metadata?.labels ?? {};
  const container = (pod.containers ?? []).find((c: Any) => c.name === app.name) ?? pod.containers?.[0];
  if (!container) {
    fail(at, 'module-complete', 'no container');
    return out;
  }
  const ports = (container.ports ?? []) as Any[];
  const portOf = (p: unknown) => ports.find((x) => x.name === p || x.containerPort === p);
  const scheme = app.name === 'gateway' ? 'HTTPS' : 'HTTP';
  const probes: [string, string][] = [
    ['startupProbe', '/health/'],
    ['readinessProbe', '/health/ready'],
    ['livenessProbe', '/health/live'],
  ];
  for (const [probe, path] of probes) {
    const get = container[probe]?.httpGet;
    if (!get) fail(at, 'probes', `${probe} (httpGet) is missing`);
    else {
      if (!String(get.path ?? '').startsWith(path)) fail(at, 'probes', `${probe} must probe ${path}`);
      const port = portOf(get.port);
      if (!port || port.containerPort !== app.port) fail(at, 'probes', `${probe} must target container port ${app.port}`);
      if ((get.scheme ?? 'HTTP') !== scheme) fail(at, 'probes', `${probe} must use scheme ${scheme}`);
    }
  }

  const env = Object.fromEntries(((container.env ?? []) as Any[]).map((e) => [e.name, e]));
  const preStop = container.lifecycle?.preStop;
  const preStopSeconds =
    preStop?.sleep?.seconds ?? Number(/^sleep$/.test(preStop?.exec?.command?.[0]) ? preStop.exec.command[1] : NaN);
  if (!preStop) fail(at, 'graceful-shutdown', 'a preStop hook must let endpoints update before SIGTERM');
  const delayMs = Number(env['SHUTDOWN_DELAY_MS']?.value ?? 0);
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  const needed = (Number.isFinite(preStopSeconds) ? preStopSeconds : 0) + delayMs / 1000 + DRAIN_MARGIN_SECONDS;
  if (grace < needed) {
    fail(
      at,
      'graceful-shutdown',
      `terminationGracePeriodSeconds ${grace} is shorter than preStop + SHUTDOWN_DELAY_MS + ${DRAIN_MARGIN_SECONDS}s drain (${needed}s)`,
    );
  }
  const mounts = (container.volumeMounts ?? []) as Any[];
  const tmp = mounts.find((m) => m.mountPath === '/tmp');
  const tmpVolume = tmp && (pod.volumes ?? []).find((v: Any) => v.name === tmp.name);
  if (!tmpVolume?.emptyDir) fail(at, 'security-context', '/tmp must be an emptyDir volume (the root file system is read-only)');

  const services = byKind(objs, 'Service').filter((s) => selects(s.spec?.selector, podLabels));
  if (services.length === 0) fail(at, 'module-complete', 'no Service selects its pods');
  for (const s of services) {
    for (const p of s.spec?.ports ?? []) {
      if (!portOf(p.targetPort ?? p.port))
        fail(`Service/${s.metadata.name}`, 'module-complete', `targetPort ${p.targetPort} is not a container port`);
    }
  }
  const hpa = byKind(objs, 'HorizontalPodAutoscaler').find(
    (h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec?.scaleTargetRef?.name === app.name,
  );
  if (!hpa) fail(at, 'module-complete', 'no HorizontalPodAutoscaler scales it');
  else if (dep.spec?.replicas !== undefined)
    fail(at, 'hpa-owns-replicas', 'spec.replicas must be left out: each apply would reset what the HPA scaled');
  else if (!(hpa.spec.minReplicas >= 1 && hpa.spec.maxReplicas >= hpa.spec.minReplicas))
    fail(`HorizontalPodAutoscaler/${hpa.metadata.name}`, 'module-complete', 'minReplicas must be >= 1 and <= maxReplicas');
  if (!byKind(objs, 'PodDisruptionBudget').some((p) => selects(p.spec?.selector?.matchLabels, podLabels))) {
    fail(at, 'module-complete', 'no PodDisruptionBudget covers its pods');
  }

  for (const name of app.secrets ?? []) {
    const ref = env[name]?.valueFrom?.secretKeyRef;
    if (!ref || ref.optional)
      fail(
        at,
        'required-secrets',
        `${name} must come from a Secret (not optional): the app refuses to start without it in production`,
      );
  }

  if (app.database) {
    if (env['DB_MIGRATE_ON_START']?.value !== 'false')
      fail(at, 'migration-order', 'DB_MIGRATE_ON_START must be "false": the migration Job runs them');
    const dbSecret = env['DATABASE_URL']?.valueFrom?.secretKeyRef;
    if (!dbSecret) fail(at, 'database-per-service', 'DATABASE_URL must come from a Secret');
    const job = named(objs, 'Job', migrateName(app.name));
    if (!job) fail(`Job/${migrateName(app.name)}`, 'migration-order', 'missing');
    else {
      const jc = job.spec?.template?.spec?.containers?.[0] ?? {};
      const jat = `Job/${migrateName(app.name)}`;
      if (jc.image !== container.image)
        fail(jat, 'migration-order', `image ${jc.image} differs from the Deployment's ${container.image}`);
      if (![...(jc.command ?? []), ...(jc.args ?? [])].includes('migrate'))
        fail(jat, 'migration-order', 'must run "node main.js migrate"');
      const jdb = ((jc.env ?? []) as Any[]).find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
      if (!jdb || !dbSecret || jdb.name !== dbSecret.name || jdb.key !== dbSecret.key)
        fail(jat, 'migration-order', 'must read DATABASE_URL from the same Secret as the Deployment');
      if (!['Never', 'OnFailure'].includes(job.spec?.template?.spec?.restartPolicy))
        fail(jat, 'migration-order', 'restartPolicy must be Never or OnFailure');
    }
  }
  return out;
}

/**
 * The Ingress routes every module host to the gateway Service over TLS; or, with the
 * gateway-loadbalancer component, the gateway Service itself is the entry point.
 */
export function checkIngress(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  const ingresses = byKind(objs, 'Ingress');
  const gateway = named(objs, 'Service', 'gateway');
  if (ingresses.length === 0) {
    if (gateway?.spec?.type !== 'LoadBalancer')
      return [violation(where, 'ingress', 'no Ingress in front of the gateway (nor a LoadBalancer gateway Service)')];
    const ports = (gateway.spec.ports ?? []) as Any[];
    const has = (port: number, target: string) => ports.some((p) => p.port === port && p.targetPort === target);
    return has(443, 'https') && has(80, 'http')
      ? []
      : [violation(`${where} Service/gateway`, 'ingress', 'a LoadBalancer gateway must publish 443 -> https and 80 -> http')];
  }
  for (const ing of ingresses) {
    const at = `${where} ${describe(ing)}`;
    const tlsHosts = ((ing.spec?.tls ?? []) as Any[]).flatMap((t) => (t.secretName ? (t.hosts ?? []) : []));
    const rules = (ing.spec?.rules ?? []) as Any[];
    for (const prefix of MODULE_HOST_PREFIXES) {
      const rule = rules.find((r) => String(r.host ?? '').startsWith(prefix));
      if (!rule) {
        out.push(violation(at, 'ingress', `no rule for the ${prefix}<domain> host`));
        continue;
      }
      if (!tlsHosts.includes(rule.host))
        out.push(violation(at, 'ingress', `host ${rule.host} is not covered by a tls entry with a secretName`));
      for (const p of rule.http?.paths ?? []) {
        const svc = p.backend?.service;
        if (svc?.name !== 'gateway') out.push(violation(at, 'ingress', `host ${rule.host} must route to the gateway Service`));
        else if (
          gateway &&
          !(gateway.spec?.ports ?? []).some((sp: Any) => sp.name === svc.port?.name || sp.port === svc.port?.number)
        ) {
          out.push(violation(at, 'ingress', `backend port ${JSON.stringify(svc.port)} is not a port of Service/gateway`));
        }
      }
    }
  }
  return out;
}

/** Every ConfigMap or Secret volume a workload needs is known: ConfigMaps must be rendered with it. */
export function checkReferences(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  const configMaps = new Set(byKind(objs, 'ConfigMap').map((c) => c.metadata?.name));
  for (const o of objs) {
    if (!WORKLOAD_KINDS.includes(o.kind)) continue;
    const pod = (o as Any).spec?.template?.spec ?? {};
    const refs: { name: string; optional?: boolean }[] = [];
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      for (const ef of c.envFrom ?? []) if (ef.configMapRef) refs.push(ef.configMapRef);
      for (const e of c.env ?? []) if (e.valueFrom?.configMapKeyRef) refs.push(e.valueFrom.configMapKeyRef);
    }
    for (const v of pod.volumes ?? []) if (v.configMap) refs.push(v.configMap);
    for (const r of refs) {
      if (!r.optional && !configMaps.has(r.name))
        out.push(violation(`${where} ${describe(o)}`, 'config-references', `ConfigMap ${r.name} is not part of this render`));
    }
  }
  return out;
}

/** NATS runs as a StatefulSet with JetStream on a persistent volume. */
export function checkNats(objs: K8sObject[], where: string): Violation[] {
  const sts = named(objs, 'StatefulSet', 'nats');
  if (!sts) return [violation(where, 'nats-jetstream', 'no nats StatefulSet')];
  const out: Violation[] = [];
  const at = `${where} StatefulSet/nats`;
  const claims = ((sts.spec?.volumeClaimTemplates ?? []) as Any[]).map((c) => c.metadata?.name);
  const container = sts.spec?.template?.spec?.containers?.[0] ?? {};
  const dataMount = ((container.volumeMounts ?? []) as Any[]).find((m) => claims.includes(m.name));
  if (!dataMount) out.push(violation(at, 'nats-jetstream', 'JetStream needs a volumeClaimTemplate mounted in the container'));
  const conf = byKind(objs, 'ConfigMap')
    .map((c) => Object.values(c.data ?? {}).join('\n'))
    .find((d) => /jetstream\s*\{/.test(d));
  const storeDir = conf && /store_dir:\s*"?([^\s"]+)/.exec(conf)?.[1];
  if (!storeDir) out.push(violation(at, 'nats-jetstream', 'no nats.conf with a jetstream store_dir'));
  else if (dataMount && !storeDir.startsWith(dataMount.mountPath))
    out.push(violation(at, 'nats-jetstream', `store_dir ${storeDir} is not on the data volume (${dataMount.mountPath})`));
  return out;
}

/** Objects of one module's render that belong to another module. */
export function checkModuleScope(objs: K8sObject[], module: string, where: string, shared: string[]): Violation[] {
  return objs
    .filter(
      (o) =>
        !shared.includes(o.metadata?.name ?? '') &&
        o.metadata?.labels?.['app.kubernetes.io/name'] !== module &&
        !(o.metadata?.name ?? '').startsWith(module),
    )
    .map((o) => violation(`${where} ${describe(o)}`, 'module-scope', `does not belong to module ${module}`));
}

/** Identity of an object for comparing renders. */
export const objectKey = (o: K8sObject) => `${o.apiVersion} ${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export const appSpec = (name: string) => APPS.find((a) => a.name === name);

/**
 * The environment's domain is used consistently: the Ingress hosts are the module
 * hosts of GATEWAY_DOMAIN, and AUTH_ISSUER is the developer module's public address.
 */
export function checkDomain(objs: K8sObject[], where: string): Violation[] {
  const config = byKind(objs, 'ConfigMap').find((c) => c.data?.['GATEWAY_DOMAIN'] !== undefined);
  if (!config) return [violation(where, 'domain', 'no ConfigMap sets GATEWAY_DOMAIN')];
  const domain = String(config.data['GATEWAY_DOMAIN']);
  const out: Violation[] = [];
  const issuer = `https://developer-api.${domain}/api/v1`;
  if (config.data['AUTH_ISSUER'] !== issuer)
    out.push(violation(`${where} ${describe(config)}`, 'domain', `AUTH_ISSUER must be ${issuer}`));
  const expected = MODULE_HOST_PREFIXES.map((p) => `${p}${domain}`);
  for (const ing of byKind(objs, 'Ingress')) {
    const hosts = ((ing.spec?.rules ?? []) as Any[]).map((r) => r.host);
    for (const host of hosts) {
      if (!expected.includes(host))
        out.push(
          violation(`${where} ${describe(ing)}`, 'domain', `host ${host} is not a module host of GATEWAY_DOMAIN ${domain}`),
        );
    }
  }
  return out;
}
