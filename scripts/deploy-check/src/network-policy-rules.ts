import { APPS } from './expectations';
import { describe, K8sObject, matchesSelector } from './k8s-object';
import { isMetricsScrapeRule } from './metrics-rules';
import { Violation, violation } from './violation';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Any = any;
type Labels = Record<string, string>;

const NAME = 'app.kubernetes.io/name';
const COMPONENT = 'app.kubernetes.io/component';
const GATEWAY = 'gateway';

/**
 * Callers a service may admit besides the gateway: the other services fetch the
 * token signing keys from developer-service (AUTH_JWKS_URL).
 */
const EXTRA_CALLERS: Record<string, string[]> = {
  'developer-service': ['user-service', 'records-service'],
};

/** Pods that may exist in a namespace of the platform, to resolve selectors of a module rendered alone. */
const KNOWN_PODS: Labels[] = [
  ...APPS.flatMap((a) => [
    { [NAME]: a.name, [COMPONENT]: 'api' },
    { [NAME]: a.name, [COMPONENT]: 'migration' },
  ]),
  // records-service's activity-log workers when they run apart (components/activity-log-workers)
  { [NAME]: 'records-service', [COMPONENT]: 'activity-log-relay' },
  { [NAME]: 'records-service', [COMPONENT]: 'activity-log-writer' },
  // its webhook fan-out and dispatcher when they run apart (components/webhook-dispatcher)
  { [NAME]: 'records-service', [COMPONENT]: 'webhook-dispatcher' },
  { [NAME]: 'nats', [COMPONENT]: 'messaging' },
  { [NAME]: 'postgres', [COMPONENT]: 'database' },
];

const policies = (objs: K8sObject[]) => objs.filter((o) => o.kind === 'NetworkPolicy') as Any[];
const podLabels = (w: Any): Labels => w.spec?.template?.metadata?.labels ?? {};
const deniesByDefault = (p: Any) =>
  Object.keys(p.spec?.podSelector ?? { x: 1 }).length === 0 &&
  (p.spec?.policyTypes ?? []).includes('Ingress') &&
  (p.spec?.ingress ?? []).length === 0;

/**
 * NetworkPolicies of a render (a whole environment or one module alone):
 * - a default-deny of ingress for the whole namespace;
 * - every API Deployment selected by a policy that admits some traffic (else it is
 *   unreachable); worker Deployments accept nothing (rule `worker-deployments` checks
 *   that NATS and PostgreSQL admit them);
 * - a service (every app but the gateway) admits only the gateway's pods (and the
 *   callers of EXTRA_CALLERS) through pod selectors, never all sources, an ipBlock
 *   or another namespace; apart from that, the Prometheus namespace may reach the
 *   `metrics` port alone (metrics-rules.ts).
 */
export function checkNetworkPolicies(objs: K8sObject[], where: string): Violation[] {
  const out: Violation[] = [];
  const all = policies(objs);
  if (!all.some(deniesByDefault)) {
    out.push(
      violation(
        where,
        'network-policy',
        'no default-deny ingress NetworkPolicy (podSelector {}, policyTypes [Ingress], no rules)',
      ),
    );
  }
  const allowing = all.filter((p) => !deniesByDefault(p));
  const pods = [
    ...KNOWN_PODS,
    ...(objs.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) as Any[]).map(podLabels),
  ];

  for (const deployment of objs.filter((o) => o.kind === 'Deployment') as Any[]) {
    const labels = podLabels(deployment);
    if ((labels[COMPONENT] ?? 'api') !== 'api') continue;
    // A policy that only lets the metrics scraper in admits none of the module's callers.
    const selecting = allowing.filter(
      (p) =>
        matchesSelector(p.spec?.podSelector, labels) && ((p.spec?.ingress ?? []) as Any[]).some((r) => !isMetricsScrapeRule(r)),
    );
    const at = `${where} ${describe(deployment)}`;
    if (selecting.length === 0) {
      out.push(violation(at, 'network-policy', 'no NetworkPolicy selects its pods to admit its callers'));
      continue;
    }
    const app = labels[NAME];
    if (!app || app === GATEWAY || !APPS.some((a) => a.name === app)) continue;
    const allowed = [GATEWAY, ...(EXTRA_CALLERS[app] ?? [])];
    for (const policy of selecting) {
      const pat = `${where} ${describe(policy)}`;
      for (const rule of (policy.spec?.ingress ?? []) as Any[]) {
        // The Prometheus namespace to the metrics port only (rule `metrics`).
        if (isMetricsScrapeRule(rule)) continue;
        const from = (rule.from ?? []) as Any[];
        if (from.length === 0) {
          out.push(violation(pat, 'network-policy', `admits every source to ${app}; only ${allowed.join(', ')} may call it`));
          continue;
        }
        for (const peer of from) {
          if (peer.ipBlock || peer.namespaceSelector || !peer.podSelector) {
            out.push(
              violation(
                pat,
                'network-policy',
                `admits ${peer.ipBlock ? 'an ipBlock' : 'another namespace'} to ${app}; only ${allowed.join(', ')} may call it`,
              ),
            );
            continue;
          }
          const intruders = pods
            .filter((l) => matchesSelector(peer.podSelector, l))
            .filter((l) => !(allowed.includes(l[NAME]) && l[COMPONENT] === 'api'))
            .map((l) => `${l[NAME] ?? '?'}${l[COMPONENT] ? ` (${l[COMPONENT]})` : ''}`);
          if (intruders.length > 0) {
            out.push(
              violation(
                pat,
                'network-policy',
                `admits ${[...new Set(intruders)].join(', ')} to ${app}; only ${allowed.join(', ')} may call it`,
              ),
            );
          }
        }
      }
    }
  }
  return out;
}
