import baseConfig, { TEST_HELPERS_PATTERN } from '../../eslint.config.mjs';

/**
 * records-service folders in layers, imports pointing one way only (docs/architecture.md,
 * records-service inside):
 *   app -> features -> capabilities -> persistence
 * Features are the HTTP resources and the activity-log pipeline; capabilities are what
 * they use. Among features only records may use files (a record's view lists its files).
 */
const FEATURES = ['vaults', 'records', 'files', 'collaborators', 'activity-log', 'activity-log-pipeline'];
const CAPABILITIES = ['access', 'plans', 'catalogue', 'branding', 'events', 'storage', 'directory'];

/** An import of any of `folders` (by a relative path from anywhere in src/). */
const importsOf = (folders, why) => ({
  regex: `^(\\.{1,2}/)+(app|${folders.join('|')})(/|$)`,
  message: why,
});

/** The rule for files under `src/<folder>/`: test helpers and `forbidden` folders barred. */
const layer = (folder, forbidden, why) => ({
  files: [`src/${folder}/**/*.ts`],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [TEST_HELPERS_PATTERN, importsOf(forbidden, why)] }],
  },
});

const otherFeatures = (f) => FEATURES.filter((x) => x !== f && !(f === 'records' && x === 'files'));

export default [
  ...baseConfig,
  layer('persistence', [...FEATURES, ...CAPABILITIES], 'persistence sits at the bottom: it imports no feature or capability.'),
  ...CAPABILITIES.map((c) => layer(c, FEATURES, 'capabilities serve features and never import them.')),
  ...FEATURES.map((f) => layer(f, otherFeatures(f), 'features do not import each other (only records uses files views).')),
];
