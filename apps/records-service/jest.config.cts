/// <reference types="node" />
module.exports = {
  displayName: 'records-service',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  coverageDirectory: '../../coverage/apps/records-service',
};
