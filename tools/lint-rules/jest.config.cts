module.exports = {
  displayName: 'lint-rules',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  coverageDirectory: '../../coverage/tools/lint-rules',
  testTimeout: 120000,
};
