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
  typeof v === 'object' && v !== null && typeof (v as K8sObject).apiVersion === 'string' && typeof (v as K8sObject).kind === 'string';

export const describe = (o: K8sObject) => `${o.kind}/${o.metadata?.name ?? '?'}`;
