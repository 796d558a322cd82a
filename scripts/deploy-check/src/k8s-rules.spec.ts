import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS } from './expectations';
import { K8sObject } from './k8s-object';
import {
  appSpec,
  checkApp,
  checkDomain,
  checkIngress,
  checkModuleScope,
  checkNats,
  checkReferences,
  checkWorkloads,
} from './k8s-rules';
import { renderKustomization } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
const OVERLAYS = path.join(__dirname, '../../../deploy/k8s/overlays');
const PROD = renderKustomization(path.join(OVERLAYS, 'prod'));
const USER_SERVICE = renderKustomization(path.join(OVERLAYS, 'dev/user-service'));

const edit = (objs: K8sObject[], kind: string, name: string, change: (o: any) => void) => {
  const copy = structuredClone(objs);
  const target = copy.find((o) => o.kind === kind && o.metadata?.name === name);
  expect(target).toBeDefined();
  change(target);
  return copy;
};
const without = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind !== kind);
const container = (d: any) => d.spec.template.spec.containers[0];
const app = (name: string) => {
  const spec = appSpec(name);
  if (!spec) throw new Error(`unknown app ${name}`);
  return spec;
};
const userService = app('user-service');
const appRules = (objs: K8sObject[]) => [...new Set(checkApp(objs, userService, 'dev/user-service').map((v) => v.rule))];
const workloadRules = (objs: K8sObject[]) => [...new Set(checkWorkloads(objs, 'x').map((v) => v.rule))];

describe('Kubernetes rules on the rendered overlays', () => {
  it('accept the production environment and a module rendered alone', () => {
    expect(checkWorkloads(PROD, 'prod')).toEqual([]);
    for (const app of APPS) expect(checkApp(PROD, app, 'prod')).toEqual([]);
    expect(checkIngress(PROD, 'prod')).toEqual([]);
    expect(checkNats(PROD, 'prod')).toEqual([]);
    expect(checkReferences(PROD, 'prod')).toEqual([]);
    expect(checkDomain(PROD, 'prod')).toEqual([]);
    expect(checkApp(USER_SERVICE, userService, 'dev/user-service')).toEqual([]);
    expect(
      checkModuleScope(
        USER_SERVICE,
        'user-service',
        'dev/user-service',
        USER_SERVICE.filter((o) => o.metadata?.name?.startsWith('vault-platform')).map((o) => o.metadata?.name ?? ''),
      ),
    ).toEqual([]);
  });

  it('require the three probes on the health endpoints and the app port', () => {
    expect(appRules(edit(USER_SERVICE, 'Deployment', 'user-service', (d) => delete container(d).readinessProbe))).toEqual([
      'probes',
    ]);
    expect(
      appRules(edit(USER_SERVICE, 'Deployment', 'user-service', (d) => (container(d).livenessProbe.httpGet.path = '/'))),
    ).toEqual(['probes']);
    expect(
      appRules(edit(USER_SERVICE, 'Deployment', 'user-service', (d) => (container(d).startupProbe.httpGet.port = 9999))),
    ).toEqual(['probes']);
    const gateway = checkApp(
      edit(PROD, 'Deployment', 'gateway', (d) => delete container(d).readinessProbe.httpGet.scheme),
      app('gateway'),
      'prod',
    );
    expect(gateway.map((v) => v.message)).toEqual(['readinessProbe must use scheme HTTPS']);
  });

  it('require a termination grace period longer than preStop + shutdown delay + drain', () => {
    expect(
      appRules(
        edit(USER_SERVICE, 'Deployment', 'user-service', (d) => (d.spec.template.spec.terminationGracePeriodSeconds = 20)),
      ),
    ).toEqual(['graceful-shutdown']);
    expect(appRules(edit(USER_SERVICE, 'Deployment', 'user-service', (d) => delete container(d).lifecycle))).toEqual([
      'graceful-shutdown',
    ]);
    expect(
      appRules(
        edit(
          USER_SERVICE,
          'Deployment',
          'user-service',
          (d) => (container(d).env.find((e: any) => e.name === 'SHUTDOWN_DELAY_MS').value = '30000'),
        ),
      ),
    ).toEqual(['graceful-shutdown']);
  });

  it('require the Service, HPA, PDB and migration Job of the module', () => {
    expect(appRules(without(USER_SERVICE, 'Service'))).toEqual(['module-complete']);
    expect(appRules(without(USER_SERVICE, 'HorizontalPodAutoscaler'))).toEqual(['module-complete']);
    expect(appRules(edit(USER_SERVICE, 'Deployment', 'user-service', (d) => (d.spec.replicas = 2)))).toEqual([
      'hpa-owns-replicas',
    ]);
    expect(appRules(without(USER_SERVICE, 'PodDisruptionBudget'))).toEqual(['module-complete']);
    expect(appRules(without(USER_SERVICE, 'Job'))).toEqual(['migration-order']);
    expect(appRules(edit(USER_SERVICE, 'Job', 'user-service-migrate', (j) => (container(j).image = 'other/image:1')))).toEqual([
      'migration-order',
    ]);
    expect(
      appRules(
        edit(
          USER_SERVICE,
          'Deployment',
          'user-service',
          (d) => (container(d).env.find((e: any) => e.name === 'DB_MIGRATE_ON_START').value = 'true'),
        ),
      ),
    ).toEqual(['migration-order']);
  });

  it('require the variables an app cannot start without in production from a Secret', () => {
    const records = app('records-service');
    const rules = (change: (env: any[]) => void) =>
      checkApp(
        edit(PROD, 'Deployment', 'records-service', (d) => change(container(d).env)),
        records,
        'prod',
      ).map((v) => [v.rule, v.message]);
    const keys = (env: any[]) => env.find((e) => e.name === 'WEBHOOK_SECRET_KEYS');
    const problem = [
      'required-secrets',
      'WEBHOOK_SECRET_KEYS must come from a Secret (not optional): the app refuses to start without it in production',
    ];
    expect(rules((env) => env.splice(env.indexOf(keys(env)), 1))).toEqual([problem]);
    expect(rules((env) => (keys(env).valueFrom.secretKeyRef.optional = true))).toEqual([problem]);
    expect(rules(() => undefined)).toEqual([]);
  });

  it('require hardened containers with pinned images and resources', () => {
    const dep = (change: (c: any) => void) => edit(USER_SERVICE, 'Deployment', 'user-service', (d) => change(container(d)));
    expect(workloadRules(dep((c) => (c.securityContext.readOnlyRootFilesystem = false)))).toEqual(['security-context']);
    expect(workloadRules(dep((c) => (c.securityContext.allowPrivilegeEscalation = true)))).toEqual(['security-context']);
    expect(workloadRules(dep((c) => (c.securityContext.capabilities.drop = [])))).toEqual(['security-context']);
    expect(workloadRules(dep((c) => (c.image = 'vault/user-service:latest')))).toEqual(['pinned-image']);
    expect(workloadRules(dep((c) => delete c.resources.limits))).toEqual(['resources']);
    expect(workloadRules(dep((c) => c.env.push({ name: 'SMTP_URL', value: 'smtp://u:p@host' })))).toEqual(['no-secret-values']);
    expect(appRules(dep((c) => (c.volumeMounts = [])))).toEqual(['security-context']);
  });

  it('reject Secret objects in a render', () => {
    const withSecret = [
      ...USER_SERVICE,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'user-service-database' }, stringData: { DATABASE_URL: 'x' } },
    ];
    expect(workloadRules(withSecret)).toEqual(['no-secret-values']);
  });

  it('require ConfigMaps a workload needs to be rendered with it', () => {
    const out = checkReferences(
      USER_SERVICE.filter((o) => !o.metadata?.name?.startsWith('vault-platform')),
      'dev/user-service',
    );
    expect(out.map((v) => `${v.where}: ${v.message}`)).toEqual([
      expect.stringMatching(
        /^dev\/user-service Deployment\/user-service: ConfigMap vault-platform-\w+ is not part of this render$/,
      ),
    ]);
  });

  it('require the Ingress to route every module host to the gateway over TLS', () => {
    expect(checkIngress(without(PROD, 'Ingress'), 'prod').map((v) => v.rule)).toEqual(['ingress']);
    const noTls = edit(PROD, 'Ingress', 'gateway', (i) => (i.spec.tls[0].hosts = i.spec.tls[0].hosts.slice(1)));
    expect(checkIngress(noTls, 'prod').map((v) => v.message)).toEqual([
      'host developer-api.vault.example.com is not covered by a tls entry with a secretName',
    ]);
    const elsewhere = edit(
      PROD,
      'Ingress',
      'gateway',
      (i) => (i.spec.rules[2].http.paths[0].backend.service.name = 'records-service'),
    );
    expect(checkIngress(elsewhere, 'prod').map((v) => v.message)).toEqual([
      'host records-api.vault.example.com must route to the gateway Service',
    ]);
  });

  it('require NATS JetStream on a persistent volume', () => {
    expect(
      checkNats(
        edit(PROD, 'StatefulSet', 'nats', (s) => delete s.spec.volumeClaimTemplates),
        'prod',
      ).map((v) => v.rule),
    ).toEqual(['nats-jetstream']);
    expect(checkNats(without(PROD, 'StatefulSet'), 'prod').map((v) => v.rule)).toEqual(['nats-jetstream']);
  });

  it('flag objects of another module in a module render', () => {
    const mixed = [...USER_SERVICE, ...PROD.filter((o) => o.kind === 'Deployment' && o.metadata?.name === 'gateway')];
    expect(checkModuleScope(mixed, 'user-service', 'dev/user-service', []).map((v) => v.where)).toContain(
      'dev/user-service Deployment/gateway',
    );
  });

  it('require one domain for the Ingress hosts, GATEWAY_DOMAIN and AUTH_ISSUER', () => {
    const platform = PROD.find((o) => o.metadata?.name?.startsWith('vault-platform'));
    const otherDomain = edit(
      PROD,
      'ConfigMap',
      platform?.metadata?.name ?? '',
      (c) => (c.data.GATEWAY_DOMAIN = 'other.example.com'),
    );
    expect(checkDomain(otherDomain, 'prod').map((v) => v.message)).toEqual([
      'AUTH_ISSUER must be https://developer-api.other.example.com/api/v1',
      'host developer-api.vault.example.com is not a module host of GATEWAY_DOMAIN other.example.com',
      'host user-api.vault.example.com is not a module host of GATEWAY_DOMAIN other.example.com',
      'host records-api.vault.example.com is not a module host of GATEWAY_DOMAIN other.example.com',
    ]);
  });

  it('accept the gateway-loadbalancer component in place of the Ingress', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-lb-'));
    try {
      const ref = (p: string) => path.relative(dir, path.join(__dirname, '../../../deploy/k8s', p));
      fs.writeFileSync(
        path.join(dir, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${ref('overlays/prod/gateway')}\ncomponents:\n  - ${ref('components/gateway-loadbalancer')}\n`,
      );
      const objs = renderKustomization(dir);
      expect(objs.filter((o) => o.kind === 'Ingress')).toEqual([]);
      expect(checkIngress(objs, 'lb')).toEqual([]);
      expect(checkApp(objs, app('gateway'), 'lb')).toEqual([]);
      const noHttp = edit(objs, 'Service', 'gateway', (s) => (s.spec.ports = s.spec.ports.filter((p: any) => p.port !== 80)));
      expect(checkIngress(noHttp, 'lb').map((v) => v.message)).toEqual([
        'a LoadBalancer gateway must publish 443 -> https and 80 -> http',
      ]);
      expect(
        checkIngress(
          edit(objs, 'Service', 'gateway', (s) => (s.spec.type = 'ClusterIP')),
          'lb',
        ).map((v) => v.rule),
      ).toEqual(['ingress']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
