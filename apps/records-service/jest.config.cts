/// <reference types="node" />
module.exports = {
  displayName: 'records-service',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  coverageDirectory: '../../coverage/apps/records-service',
  // @tus/server, @tus/utils and srvx ship ES modules only: compiled to CommonJS like jose
  transformIgnorePatterns: ['/node_modules/(?!(jose|@tus|srvx)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};
