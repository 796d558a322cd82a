/// <reference types="node" />
module.exports = {
  displayName: 'user-service',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  coverageDirectory: '../../coverage/apps/user-service',
};
