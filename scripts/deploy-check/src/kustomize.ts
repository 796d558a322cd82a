import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isK8sObject, K8sObject } from './k8s-object';

export interface Kustomization {
  dir: string;
  kind: 'Kustomization' | 'Component';
}

/** Every kustomization.yaml below `root`, with its kind. */
export function findKustomizations(root: string): Kustomization[] {
  const found: Kustomization[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'kustomization.yaml' || entry.name === 'kustomization.yml') {
        const doc = parseYamlDocuments(fs.readFileSync(full, 'utf8'), full)[0] as { kind?: string } | undefined;
        found.push({ dir, kind: doc?.kind === 'Component' ? 'Component' : 'Kustomization' });
      }
    }
  };
  if (fs.existsSync(root)) walk(root);
  return found;
}

/** Parses multi-document YAML; a syntax error or warning throws, naming the file. */
export function parseYamlDocuments(text: string, where: string): unknown[] {
  return parseAllDocuments(text, { merge: true })
    .map((doc) => {
      const problems = [...doc.errors, ...doc.warnings];
      if (problems.length > 0) throw new Error(`${where}: ${problems.map((p) => p.message).join('; ')}`);
      return doc.toJS({ maxAliasCount: 1000 }) as unknown;
    })
    .filter((d) => d !== null && d !== undefined);
}

/**
 * Renders a kustomization with the kustomize built into kubectl (`kubectl kustomize`),
 * or a standalone `kustomize build` when KUSTOMIZE names that binary.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const custom = process.env['KUSTOMIZE'];
  const [bin, args] = custom ? [custom, ['build', dir]] : ['kubectl', ['kustomize', dir]];
  let text: string;
  try {
    text = execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(`${bin} not found: install kubectl (kustomize is built in) or set KUSTOMIZE=/path/to/kustomize`);
    throw new Error(`${bin} ${args.join(' ')} failed: ${(e.stderr ?? e.message).trim()}`);
  }
  return parseYamlDocuments(text, dir).filter(isK8sObject);
}
