import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The layers of a service, as folders of its `src/` (docs/architecture.md, "One shape for
 * every service"). Imports point one way only:
 *
 *   main.ts → app → features/<feature> → capabilities/<capability> → persistence/<aggregate>
 *
 * - `config/` (validated settings) may be imported by every layer and imports none of them;
 * - `migrations/` import no live code (a migration must not change when the code does);
 * - a feature imports no other feature, except what `allow` names for it;
 * - capabilities may use each other, and aggregates each other, never a layer above.
 *
 * The rule is keyed on these folders: a new feature, capability or aggregate is checked
 * as soon as it exists, and a folder of `src/` outside them fails the lint.
 */
export const LAYERS = ['app', 'config', 'features', 'capabilities', 'persistence', 'migrations'];

/** Which layers each layer must not import (relative to `src/`). */
const FORBIDDEN = {
  config: ['app', 'features', 'capabilities', 'persistence', 'migrations'],
  migrations: ['app', 'config', 'features', 'capabilities', 'persistence'],
  persistence: ['app', 'features', 'capabilities', 'migrations'],
  capabilities: ['app', 'features', 'migrations'],
  features: ['app', 'migrations'],
};

const WHY = {
  config: 'config is read by every layer and imports none of them.',
  migrations: 'a migration imports no live code: it must not change when the code does.',
  persistence: 'persistence is the bottom layer: it imports no feature, capability or app code.',
  capabilities: 'capabilities serve features and never import them.',
  features: 'features are used by app/ only.',
};

/** The sub-folders of `dir` (none when it does not exist). */
function folders(dir) {
  return existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];
}

/**
 * The flat-config entries of a service at `appDir` (its eslint.config.mjs passes
 * `import.meta.dirname`). `allow` names, per feature, the globs (relative to `src/`)
 * of other features' files it may import, e.g. `{ webhooks: ['features/*\/**\/*.view.ts'] }`.
 */
export function serviceLayers(appDir, { allow = {} } = {}) {
  const src = join(appDir, 'src');
  const at = (path) => join(src, path);
  const zones = Object.entries(FORBIDDEN).map(([layer, forbidden]) => ({
    target: at(`${layer}/**`),
    from: forbidden.map((f) => at(`${f}/**`)),
    message: WHY[layer],
  }));
  for (const feature of folders(at('features'))) {
    zones.push({
      target: at(`features/${feature}/**`),
      from: at('features/**'),
      except: [at(`features/${feature}/**`), ...(allow[feature] ?? []).map(at)],
      message: `features do not import each other${allow[feature] ? ` (${feature} may import ${allow[feature].join(', ')})` : ''}.`,
    });
  }
  return [
    {
      files: ['src/**/*.ts'],
      ignores: ['**/*.spec.ts'],
      plugins: { 'import-x': importX },
      settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })] },
      rules: { 'import-x/no-restricted-paths': ['error', { zones }] },
    },
    {
      // Every source file lives in a layer folder; main.ts alone sits at the top.
      files: ['src/**/*.ts'],
      ignores: ['src/main.ts', ...LAYERS.map((layer) => `src/${layer}/**`)],
      rules: {
        'no-restricted-syntax': [
          'error',
          {
            selector: 'Program',
            message: `src/ holds main.ts and the layer folders only (${LAYERS.join(', ')}): put this file in one of them.`,
          },
        ],
      },
    },
  ];
}
