import * as fs from 'node:fs';
import * as path from 'node:path';
import { K8sObject } from './k8s-object';
import { parseYamlDocuments, renderKustomization } from './kustomize';
import { checkMetrics } from './metrics-rules';
import { checkNetworkPolicies } from './network-policy-rules';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
const K8S = path.join(__dirname, '../../../deploy/k8s');
const PROD = renderKustomization(path.join(K8S, 'overlays/prod'));
const DEV_RECORDS = renderKustomization(path.join(K8S, 'overlays/dev/records-service'));
/** The activity-log worker Deployments of their Component, beside the prod render. */
const WORKERS = ['relay.yaml', 'writer.yaml'].flatMap((f) => {
  const file = path.join(K8S, 'components/activity-log-workers', f);
  return parseYamlDocuments(fs.readFileSync(file, 'utf8'), file) as K8sObject[];
});

const edit = (objs: K8sObject[], kind: string, name: string, change: (o: any) => void) => {
  const copy = structuredClone(objs);
  const target = copy.find((o) => o.kind === kind && o.metadata?.name === name) as any;
  expect(target).toBeDefined();
  change(target);
  return copy;
};
const container = (d: any) => d.spec.template.spec.containers[0];
const messages = (objs: K8sObject[]) => checkMetrics(objs, 'prod').map((v) => `${v.where}: ${v.message}`);

describe('metrics', () => {
  it('accepts every module and worker: METRICS_PORT on a "metrics" port, scrape annotations, the scraper admitted', () => {
    expect(checkMetrics(PROD, 'prod')).toEqual([]);
    expect(checkMetrics(DEV_RECORDS, 'dev/records-service')).toEqual([]);
    const workers = [...PROD, ...WORKERS];
    expect(workers.filter((o) => o.kind === 'Deployment' && /activity-log/.test(String(o.metadata?.name)))).toHaveLength(2);
    expect(checkMetrics(workers, 'prod')).toEqual([]);
    expect(checkNetworkPolicies(workers, 'prod')).toEqual([]);
  });

  it('refuses a module without the metrics port, with another METRICS_PORT, or without the annotations', () => {
    const noPort = edit(
      PROD,
      'Deployment',
      'user-service',
      (d) => (container(d).ports = container(d).ports.filter((p: any) => p.name !== 'metrics')),
    );
    expect(messages(noPort)).toEqual([
      'prod Deployment/user-service: no container port named "metrics" (the /metrics server, METRICS_PORT)',
    ]);
    const otherPort = edit(
      PROD,
      'Deployment',
      'gateway',
      (d) => (container(d).env.find((e: any) => e.name === 'METRICS_PORT').value = '9100'),
    );
    expect(messages(otherPort)).toEqual([
      'prod Deployment/gateway: METRICS_PORT is 9100 but the "metrics" container port is 9464',
    ]);
    const noAnnotation = edit(
      PROD,
      'Deployment',
      'records-service',
      (d) => delete d.spec.template.metadata.annotations['prometheus.io/scrape'],
    );
    expect(messages(noAnnotation)).toEqual([
      'prod Deployment/records-service: pod annotation prometheus.io/scrape must be "true" (got nothing)',
    ]);
  });

  it('refuses a Service that exposes the metrics port', () => {
    const exposed = edit(PROD, 'Service', 'records-service', (s) =>
      s.spec.ports.push({ name: 'metrics', port: 9464, targetPort: 'metrics' }),
    );
    expect(messages(exposed)).toEqual([
      'prod Deployment/records-service: Service/records-service exposes the metrics port: /metrics must stay off every routable address',
    ]);
  });

  it('needs the scrape policy under the default deny, and lets it reach the metrics port only', () => {
    // one finding per Deployment: the four modules and records-service's event pipeline
    const deployments = PROD.filter((o) => o.kind === 'Deployment').map((o) => o.metadata?.name);
    expect(deployments).toHaveLength(5);
    expect(deployments).toContain('records-service-events');
    const perDeployment = deployments.map(() => 'metrics');
    const without = PROD.filter((o) => o.metadata?.name !== 'vault-platform-allow-metrics-scrape');
    expect(checkMetrics(without, 'prod').map((v) => v.rule)).toEqual(perDeployment);
    // the same namespace admitted to the API port is refused by the network-policy rule
    const wider = edit(PROD, 'NetworkPolicy', 'vault-platform-allow-metrics-scrape', (p) =>
      p.spec.ingress[0].ports.push({ port: 'http', protocol: 'TCP' }),
    );
    expect(checkNetworkPolicies(wider, 'prod').map((v) => v.message)).toContain(
      'admits another namespace to records-service; only gateway may call it',
    );
    expect(checkMetrics(wider, 'prod').map((v) => v.rule)).toEqual(perDeployment);
  });
});
