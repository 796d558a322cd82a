const nxPreset = require('@nx/jest/preset').default;
const { join } = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

/**
 * The workspace's import aliases (`@vault/contracts` and each entry point of the platform,
 * `@vault/platform/<folder>`), mapped to the files tsconfig.base.json names: one list for tsc, webpack and jest.
 */
function aliases() {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [file]]) => [`^${escape(alias)}$`, join(__dirname, file)]),
  );
}

// SWC transpiles with decorator metadata (Nest DI needs it); type checking is the
// separate `typecheck` target, so tests stay fast.
module.exports = {
  ...nxPreset,
  transform: {
    '^.+\\.[cm]?[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  // jose ships ES modules only; compile it to CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: aliases(),
  testTimeout: 30000,
};
