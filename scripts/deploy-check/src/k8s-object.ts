/** A Kubernetes object as parsed from YAML, with where it came from. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

export const isK8sObject = (v: unknown): v is K8sObject =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as K8sObject).apiVersion === 'string' &&
  typeof (v as K8sObject).kind === 'string';

export const describe = (o: K8sObject) => `${o.kind}/${o.metadata?.name ?? '?'}`;

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Any = any;
type Labels = Record<string, string>;

/** The objects of one kind. */
export const byKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind) as Any[];
/** The object of this kind and name, if any. */
export const named = (objs: K8sObject[], kind: string, name: string) => byKind(objs, kind).find((o) => o.metadata?.name === name);

/** Kubernetes label selector semantics (matchLabels and matchExpressions); `{}` selects every pod. */
export function matchesSelector(selector: Any, labels: Labels): boolean {
  if (!selector) return false;
  const byLabel = Object.entries((selector.matchLabels ?? {}) as Labels).every(([k, v]) => labels[k] === v);
  const byExpression = ((selector.matchExpressions ?? []) as Any[]).every((e) => {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const values = (e.values ?? []) as string[];
    switch (e.operator) {
      case 'In':
        return has && values.includes(labels[e.key]);
      case 'NotIn':
        return !has || !values.includes(labels[e.key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
  return byLabel && byExpression;
}

/**
 * The environment a container sees: its ConfigMaps (envFrom, in order) then its own
 * `env` literals. Values from Secrets or fields are left out.
 */
export function containerEnv(objs: K8sObject[], container: Any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ef of container?.envFrom ?? []) {
    const cm = ef.configMapRef && named(objs, 'ConfigMap', ef.configMapRef.name);
    if (cm) Object.assign(env, cm.data ?? {});
  }
  for (const e of container?.env ?? []) if (e.value !== undefined) env[e.name] = String(e.value);
  return env;
}
