const nxPreset = require('@nx/jest/preset').default;

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
  moduleNameMapper: {
    '^@vault/contracts$': '<rootDir>/../../libs/contracts/src/index.ts',
    '^@vault/platform$': '<rootDir>/../../libs/platform/src/index.ts',
    '^@vault/platform/testing$': '<rootDir>/../../libs/platform/src/testing/index.ts',
  },
  testTimeout: 30000,
};
