import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, K8sObject } from './k8s-object';
import { Violation, violation } from './violation';

export interface Located {
  object: K8sObject;
  where: string;
}

let modelsRoot: string | undefined;

/** Folder of the kubernetes-models package (ESM only, so it is loaded by file path). */
function kubernetesModelsDir(): string {
  if (modelsRoot) return modelsRoot;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'kubernetes-models');
    if (fs.existsSync(path.join(candidate, 'package.json'))) return (modelsRoot = candidate);
    if (path.dirname(dir) === dir) throw new Error('kubernetes-models is not installed (npm install)');
  }
}

/** `apps/v1` + `Deployment` -> `apps/v1/Deployment` (core kinds live under `v1/`). */
const modelModule = (o: K8sObject) => `${o.apiVersion}/${o.kind}`;

/**
 * Validates objects against the Kubernetes OpenAPI schemas compiled into
 * kubernetes-models (types, required fields, formats). Unknown kinds fail.
 */
export function validateSchemas(items: Located[]): Violation[] {
  const out: Violation[] = [];
  const dir = kubernetesModelsDir();
  for (const { object, where } of items) {
    const file = path.join(dir, `${modelModule(object)}.js`);
    if (!/^[\w.-]+(\/[\w.-]+)?$/.test(object.apiVersion) || !fs.existsSync(file)) {
      out.push(
        violation(`${where} ${describe(object)}`, 'k8s-schema', `unknown apiVersion/kind ${object.apiVersion} ${object.kind}`),
      );
      continue;
    }
    const model = require(file) as Record<string, new (data: unknown) => { validate(): void }>;
    try {
      new model[object.kind](object).validate();
    } catch (err) {
      out.push(violation(`${where} ${describe(object)}`, 'k8s-schema', (err as Error).message));
    }
  }
  return out;
}

/**
 * The files of the TypeScript libraries and kubernetes-models, parsed once and shared by
 * the programs of one run (each check, each Component variant): only the generated file
 * of objects differs between them.
 */
const libraryFiles = new Map<string, ts.SourceFile>();

/**
 * Strict field check (what kubeconform calls -strict): every object is type-checked
 * as an object literal of its kubernetes-models interface, so a misspelt or misplaced
 * field ("readinessProbes", a probe under the pod spec) is reported, which the
 * OpenAPI schemas alone let through.
 */
export function checkUnknownFields(items: Located[]): Violation[] {
  const dir = kubernetesModelsDir();
  const unique = new Map<string, Located>();
  for (const item of items) {
    if (fs.existsSync(path.join(dir, `${modelModule(item.object)}.js`))) unique.set(JSON.stringify(item.object), item);
  }
  const entries = [...unique.values()];
  const imports = new Map<string, string>();
  const lines: string[] = [];
  const starts: number[] = [];
  for (const { object } of entries) {
    const mod = modelModule(object);
    if (!imports.has(mod)) imports.set(mod, `T${imports.size}`);
  }
  for (const [mod, alias] of imports) {
    const kind = mod.split('/').pop();
    lines.push(`import type { I${kind} as ${alias} } from 'kubernetes-models/${mod}';`);
  }
  entries.forEach(({ object }, i) => {
    starts.push(lines.length);
    const body = JSON.stringify(object, null, 1).split('\n');
    lines.push(`export const o${i}: ${imports.get(modelModule(object))} = ${body[0]}`, ...body.slice(1));
  });
  const fileName = path.join(path.dirname(dir), '..', '.deploy-check-objects.ts');
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, lang, ...rest) => {
    if (f === fileName) return ts.createSourceFile(f, source, lang);
    let file = libraryFiles.get(f);
    if (!file) {
      file = getSourceFile(f, lang, ...rest);
      if (file) libraryFiles.set(f, file);
    }
    return file;
  };
  host.fileExists = (f) => f === fileName || fileExists(f);
  host.readFile = (f) => (f === fileName ? source : readFile(f));
  const program = ts.createProgram([fileName], options, host);
  const out: Violation[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    let index = starts.length - 1;
    while (index > 0 && starts[index] > line) index--;
    const item = line >= starts[0] ? entries[index] : undefined;
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    out.push(violation(item ? `${item.where} ${describe(item.object)}` : 'kubernetes-models', 'k8s-unknown-field', message));
  }
  return out;
}
