/// <reference types="node" />
module.exports = {
  displayName: 'developer-service',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // jose and oauth4webapi (the third-party OAuth client of test/oauth-client.spec.ts) ship ES modules only.
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi)/)'],
  coverageDirectory: '../../coverage/apps/developer-service',
};
