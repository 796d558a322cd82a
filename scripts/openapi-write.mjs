#!/usr/bin/env node
/**
 * Writes the OpenAPI 3.1 documents of the modules and the merged document of the whole API
 * to libs/contracts/openapi/ (developer.json, user.json, records.json, vault-api.json),
 * from the route metadata alone: each app module is created in Nest's preview mode (no
 * provider runs, so no database, NATS or environment is needed).
 *
 *   node scripts/openapi-write.mjs           write the files
 *   node scripts/openapi-write.mjs --check   fail (exit 1) when a file differs from what the code describes
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const OUT_DIR = join(root, 'libs/contracts/openapi');

/** The modules, in the merged document's order. */
export const MODULES = [
  { name: 'developer', app: 'developer-service' },
  { name: 'user', app: 'user-service' },
  { name: 'records', app: 'records-service' },
];

export const MERGED_INFO = {
  title: 'Vault API',
  description:
    'The whole vault platform in one document: the developer, user and records modules, each path with the ' +
    'server of its module (https://<module>-api.<domain>/api/v1). Errors are RFC 9457 problem+json bodies ' +
    '(docs/errors.md); every answer carries X-Request-Id and the rate-limit headers (docs/openapi.md).',
};

/** TypeScript sources loaded as the jest preset loads them (SWC, decorator metadata), with the workspace aliases. */
function registerTypeScript() {
  const { transformSync } = require('@swc/core');
  const Module = require('node:module');
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8'));
  require('tsconfig-paths').register({ baseUrl: root, paths: compilerOptions.paths, addMatchAll: false });
}

async function moduleDocument({ app }) {
  const { NestFactory } = require('@nestjs/core');
  const { useApiPrefix } = require(join(root, 'libs/platform/src/bootstrap/configure-app.ts'));
  const { buildModuleDocument } = require(join(root, 'libs/platform/src/openapi/index.ts'));
  const { AppModule } = require(join(root, 'apps', app, 'src/app/app.module.ts'));
  const { APP_DESCRIPTION } = require(join(root, 'apps', app, 'src/app/app.description.ts'));
  const nest = await NestFactory.create(AppModule, { preview: true, logger: false, abortOnError: false });
  try {
    useApiPrefix(nest);
    return buildModuleDocument(nest, APP_DESCRIPTION);
  } finally {
    await nest.close();
  }
}

/** Every document, formatted as Prettier formats JSON, by file name. */
export async function documents() {
  registerTypeScript();
  const { mergeDocuments } = require(join(root, 'libs/platform/src/openapi/index.ts'));
  const prettier = require('prettier');
  const options = { ...(await prettier.resolveConfig(join(OUT_DIR, 'x.json'))), parser: 'json' };
  const docs = [];
  for (const m of MODULES) docs.push([`${m.name}.json`, await moduleDocument(m)]);
  docs.push([
    'vault-api.json',
    mergeDocuments(
      docs.map(([, d]) => d),
      MERGED_INFO,
    ),
  ]);
  return Promise.all(docs.map(async ([file, doc]) => [file, await prettier.format(JSON.stringify(doc), options)]));
}

async function main() {
  const check = process.argv.includes('--check');
  const files = await documents();
  mkdirSync(OUT_DIR, { recursive: true });
  const drift = [];
  for (const [file, text] of files) {
    const path = join(OUT_DIR, file);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === text) continue;
    if (check) drift.push(file);
    else writeFileSync(path, text);
  }
  if (drift.length > 0) {
    console.error(
      `libs/contracts/openapi/ differs from what the code describes: ${drift.join(', ')}.\n` +
        'Run `npm run openapi:write` and commit the documents.',
    );
    process.exit(1);
  }
  console.log(check ? 'OpenAPI documents up to date.' : `OpenAPI documents written to ${OUT_DIR}.`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
