import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { join } from 'node:path';
import baseConfig from '../../eslint.config.mjs';

/**
 * The entry points of the platform (one folder of src/ each, `@vault/platform/<folder>`),
 * lowest first: a folder imports only folders listed before it. errors/ sits below http/
 * and idempotency/, which hand the problem filter what it needs (ProblemFilterHooks,
 * registered by bootstrap/). observability/ counts replayed idempotent answers by their
 * header, and persistence/ runs the idempotency keys' janitor and joins request
 * transactions, so idempotency/ sits below both. testing/ may use them all.
 */
export const PLATFORM_LAYERS = [
  'config',
  'errors',
  'http',
  'idempotency',
  'observability',
  'events',
  'persistence',
  'auth',
  'health',
  'runtime',
  'openapi',
  'bootstrap',
];

const at = (folder) => join(import.meta.dirname, 'src', folder, '**');

const zones = PLATFORM_LAYERS.slice(0, -1).map((layer, i) => ({
  target: at(layer),
  from: [...PLATFORM_LAYERS.slice(i + 1), 'testing'].map(at),
  message: `${layer}/ imports only ${i === 0 ? 'no other entry point' : PLATFORM_LAYERS.slice(0, i).join(', ')} (libs/platform/eslint.config.mjs).`,
}));

export default [
  ...baseConfig,
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { zones }] },
  },
];
