import * as path from 'node:path';
import { K8sObject } from './k8s-object';
import { renderKustomization } from './kustomize';
import { matchesSelector } from './k8s-object';
import { checkNetworkPolicies } from './network-policy-rules';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
const OVERLAYS = path.join(__dirname, '../../../deploy/k8s/overlays');
const PROD = renderKustomization(path.join(OVERLAYS, 'prod'));
const DEV = renderKustomization(path.join(OVERLAYS, 'dev'));
const USER_SERVICE = renderKustomization(path.join(OVERLAYS, 'dev/user-service'));

const policy = (objs: K8sObject[], name: string): any =>
  objs.find((o) => o.kind === 'NetworkPolicy' && o.metadata?.name === name);
const edit = (objs: K8sObject[], name: string, change: (p: any) => void) => {
  const copy = structuredClone(objs);
  const target = policy(copy, name);
  expect(target).toBeDefined();
  change(target);
  return copy;
};
const messages = (objs: K8sObject[]) => checkNetworkPolicies(objs, 'env').map((v) => `${v.where}: ${v.message}`);

describe('NetworkPolicy rules', () => {
  it('accept both environments and a module rendered alone', () => {
    expect(checkNetworkPolicies(PROD, 'prod')).toEqual([]);
    expect(checkNetworkPolicies(DEV, 'dev')).toEqual([]);
    expect(checkNetworkPolicies(USER_SERVICE, 'dev/user-service')).toEqual([]);
  });

  it('ship the policies the platform relies on', () => {
    const nats = policy(DEV, 'nats');
    const postgres = policy(DEV, 'postgres');
    const service = { 'app.kubernetes.io/name': 'records-service', 'app.kubernetes.io/component': 'api' };
    const job = { 'app.kubernetes.io/name': 'records-service', 'app.kubernetes.io/component': 'migration' };
    const gateway = { 'app.kubernetes.io/name': 'gateway', 'app.kubernetes.io/component': 'api' };
    expect(matchesSelector(nats.spec.ingress[0].from[0].podSelector, service)).toBe(true);
    // The gateway keeps its rate-limit counters in a NATS key-value bucket; migration Jobs never reach NATS.
    expect(matchesSelector(nats.spec.ingress[0].from[0].podSelector, gateway)).toBe(true);
    expect(nats.spec.ingress[0].from.some((peer: any) => matchesSelector(peer.podSelector, job))).toBe(false);
    expect(matchesSelector(postgres.spec.ingress[0].from[0].podSelector, job)).toBe(true);
    expect(matchesSelector(postgres.spec.ingress[0].from[0].podSelector, gateway)).toBe(false);
    expect(policy(PROD, 'postgres')).toBeUndefined();
  });

  it('require a default-deny policy', () => {
    const open = PROD.filter((o) => !(o.kind === 'NetworkPolicy' && o.metadata?.name === 'vault-platform-default-deny-ingress'));
    expect(messages(open)).toEqual([expect.stringMatching(/^env: no default-deny ingress NetworkPolicy/)]);
  });

  it('require every Deployment to be selected by a policy admitting its callers', () => {
    const orphan = PROD.filter((o) => !(o.kind === 'NetworkPolicy' && o.metadata?.name === 'gateway'));
    expect(messages(orphan)).toEqual(['env Deployment/gateway: no NetworkPolicy selects its pods to admit its callers']);
    const mislabelled = edit(PROD, 'user-service', (p) => (p.spec.podSelector.matchLabels['app.kubernetes.io/name'] = 'users'));
    expect(messages(mislabelled)).toEqual([
      'env Deployment/user-service: no NetworkPolicy selects its pods to admit its callers',
    ]);
  });

  it('refuse a service admitting anything but the gateway', () => {
    expect(messages(edit(PROD, 'user-service', (p) => delete p.spec.ingress[0].from))).toEqual([
      'env NetworkPolicy/user-service: admits every source to user-service; only gateway may call it',
    ]);
    expect(messages(edit(PROD, 'records-service', (p) => (p.spec.ingress[0].from = [{ podSelector: {} }])))).toEqual([
      expect.stringMatching(
        /^env NetworkPolicy\/records-service: admits .*developer-service \(api\).*nats \(messaging\).*; only gateway may call it$/,
      ),
    ]);
    expect(messages(edit(PROD, 'user-service', (p) => p.spec.ingress[0].from.push({ ipBlock: { cidr: '10.0.0.0/8' } })))).toEqual(
      ['env NetworkPolicy/user-service: admits an ipBlock to user-service; only gateway may call it'],
    );
    expect(
      messages(
        edit(
          PROD,
          'developer-service',
          (p) => (p.spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/component'] = 'migration'),
        ),
      ),
    ).toEqual([
      'env NetworkPolicy/developer-service: admits gateway (migration) to developer-service; only gateway, user-service, records-service may call it',
    ]);
    // developer-service serves the signing keys to the other services; they may not call each other.
    expect(
      messages(
        edit(
          PROD,
          'user-service',
          (p) => (p.spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/name'] = 'records-service'),
        ),
      ),
    ).toEqual(['env NetworkPolicy/user-service: admits records-service (api) to user-service; only gateway may call it']);
  });
});
