import nx from '@nx/eslint-plugin';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** Test helpers never reach production code (a project adding its own import rules repeats it). */
export const TEST_HELPERS_PATTERN = {
  regex: '^(@vault/platform|\\.{1,2}(/[^/]+)*)/testing(/|$)',
  message: 'Test helpers are for *.spec.ts files and test/ folders, not production source.',
};

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/out-tsc', '**/.data', 'bench/**/results'],
  },
  {
    // Test helpers (@vault/platform/testing, libs/platform/src/testing) never reach
    // production code: only *.spec.ts files and test/ folders import them.
    files: ['**/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [TEST_HELPERS_PATTERN],
        },
      ],
    },
  },
  {
    // Production code imports only packages the root package.json lists under
    // `dependencies`: the images install exactly those (each app's generated package.json
    // and lockfile, `npm ci --omit=dev`), so a devDependency or an undeclared transitive
    // package imported here would be missing at run time. Type-only imports are erased by
    // the build and are not checked; the workspace's own libs (@vault/*) are internal.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/src/testing/**', 'apps/platform-e2e/**'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/internal-regex': '^@vault/',
      'import-x/resolver-next': [createNodeResolver()],
    },
    rules: {
      'import-x/no-extraneous-dependencies': [
        'error',
        { devDependencies: false, optionalDependencies: false, peerDependencies: false, packageDir: [import.meta.dirname] },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [
            '^.*/eslint(\\.base)?\\.config\\.[cm]?[jt]s$',
            '^.*/eslint\\.layers\\.mjs$',
            '^.*/scripts/platform\\.cjs$',
            '^.*/webpack\\.app\\.cjs$',
          ],
          depConstraints: [
            // Apps never import apps: they share code only through the two libs.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:sdk'] },
            // The SDK stands alone (a published package); the CLI is built on it only.
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:cli', onlyDependOnLibsWithTags: ['type:sdk'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            // platform builds on contracts; contracts (the wire types) depends on no project.
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
];
