import baseConfig, { TEST_HELPERS_PATTERN } from '../../eslint.config.mjs';

/**
 * records-service folders in layers, imports pointing one way only (docs/architecture.md,
 * records-service inside):
 *   app -> features -> capabilities -> persistence
 * Features are the HTTP resources and the activity-log pipeline; capabilities are what
 * they use. Among features only records may use files (a record's view lists its files), and
 * webhooks may use the views (`<name>.view`) of the others (a webhook carries a resource as
 * the API shows it).
 */
const FEATURES = ['vaults', 'records', 'files', 'collaborators', 'activity-log', 'activity-log-pipeline', 'webhooks', 'change-feed'];
const CAPABILITIES = ['access', 'plans', 'catalogue', 'branding', 'events', 'storage', 'directory'];

/** An import of any of `folders` (by a relative path from anywhere in src/), views excepted with `views`. */
const importsOf = (folders, why, views = false) => ({
  regex: `^(\\.{1,2}/)+(app|${folders.join('|')})(/${views ? '(?![^/]+\\.view$)' : ''}|$)`,
  message: why,
});

/** The rule for files under `src/<folder>/`: test helpers and `forbidden` folders barred. */
const layer = (folder, forbidden, why, views = false) => ({
  files: [`src/${folder}/**/*.ts`],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [TEST_HELPERS_PATTERN, importsOf(forbidden, why, views)] }],
  },
});

const otherFeatures = (f) => FEATURES.filter((x) => x !== f && !(f === 'records' && x === 'files'));

export default [
  ...baseConfig,
  layer('persistence', [...FEATURES, ...CAPABILITIES], 'persistence sits at the bottom: it imports no feature or capability.'),
  ...CAPABILITIES.map((c) => layer(c, FEATURES, 'capabilities serve features and never import them.')),
  ...FEATURES.map((f) =>
    layer(f, otherFeatures(f), 'features do not import each other (records uses files views, webhooks every view).', f === 'webhooks'),
  ),
];
