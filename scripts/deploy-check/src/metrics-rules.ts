import { APPS } from './expectations';
import { byKind, containerEnv, describe, K8sObject, matchesSelector } from './k8s-object';
import { Violation, violation } from './violation';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Any = any;

const NAME = 'app.kubernetes.io/name';
/** Container port name of the /metrics server (METRICS_PORT). */
export const METRICS_PORT_NAME = 'metrics';
/** Namespace label that marks the Prometheus namespace, the only source admitted to the metrics port. */
export const METRICS_SCRAPER_LABEL = 'vault.platform/metrics-scraper';

/**
 * An ingress rule that admits only the Prometheus namespace (namespaceSelector with
 * METRICS_SCRAPER_LABEL "true", optionally narrowed by a podSelector) and only to the
 * `metrics` port. Rule `network-policy` lets such a rule through beside the gateway-only rules.
 */
export function isMetricsScrapeRule(rule: Any): boolean {
  const ports = (rule?.ports ?? []) as Any[];
  const from = (rule?.from ?? []) as Any[];
  return (
    ports.length > 0 &&
    ports.every((p) => p.port === METRICS_PORT_NAME) &&
    from.length > 0 &&
    from.every((peer) => !peer.ipBlock && peer.namespaceSelector?.matchLabels?.[METRICS_SCRAPER_LABEL] === 'true')
  );
}

/**
 * Rule `metrics`: every Deployment of a module (API and workers) serves /metrics on a
 * container port named `metrics` that METRICS_PORT names, announces it to Prometheus with
 * the pod annotations prometheus.io/scrape, /port and /path; no Service exposes that port
 * (so neither the gateway nor an Ingress can route to it); and, under a default deny, a
 * NetworkPolicy admits the scraper namespace to it (isMetricsScrapeRule).
 */
export function checkMetrics(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  const policies = byKind(objs, 'NetworkPolicy');
  const services = byKind(objs, 'Service');
  for (const dep of byKind(objs, 'Deployment')) {
    const labels = (dep.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
    if (!APPS.some((a) => a.name === labels[NAME])) continue;
    const at = `${where} ${describe(dep)}`;
    const fail = (message: string) => out.push(violation(at, 'metrics', message));
    const container = (dep.spec?.template?.spec?.containers ?? [])[0] as Any;
    const port = ((container?.ports ?? []) as Any[]).find((p) => p.name === METRICS_PORT_NAME);
    const configured = containerEnv(objs, container)['METRICS_PORT'];
    if (!port) {
      fail(`no container port named "${METRICS_PORT_NAME}" (the /metrics server, METRICS_PORT)`);
      continue;
    }
    if (configured !== String(port.containerPort))
      fail(`METRICS_PORT is ${configured ?? 'unset'} but the "${METRICS_PORT_NAME}" container port is ${port.containerPort}`);
    const annotations = (dep.spec?.template?.metadata?.annotations ?? {}) as Record<string, string>;
    const wanted: Record<string, string> = {
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port.containerPort),
      'prometheus.io/path': '/metrics',
    };
    for (const [key, value] of Object.entries(wanted)) {
      if (annotations[key] !== value)
        fail(
          `pod annotation ${key} must be "${value}" (got ${annotations[key] === undefined ? 'nothing' : `"${annotations[key]}"`})`,
        );
    }
    for (const svc of services) {
      if (!matchesSelector({ matchLabels: svc.spec?.selector ?? { '-': '-' } }, labels)) continue;
      for (const p of (svc.spec?.ports ?? []) as Any[]) {
        if (p.targetPort === METRICS_PORT_NAME || p.targetPort === port.containerPort) {
          fail(`${describe(svc)} exposes the metrics port: /metrics must stay off every routable address`);
        }
      }
    }
    const denied = policies.some(
      (p) => Object.keys(p.spec?.podSelector ?? { x: 1 }).length === 0 && (p.spec?.ingress ?? []).length === 0,
    );
    const admitted = policies.some(
      (p) => matchesSelector(p.spec?.podSelector, labels) && ((p.spec?.ingress ?? []) as Any[]).some(isMetricsScrapeRule),
    );
    if (denied && !admitted)
      fail(
        `no NetworkPolicy admits the metrics scraper (namespace labelled ${METRICS_SCRAPER_LABEL}=true) to its "${METRICS_PORT_NAME}" port`,
      );
  }
  return out;
}
