/// <reference types="node" />
module.exports = {
  displayName: 'platform',
  preset: '../../jest.preset.js',
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  coverageDirectory: '../../coverage/libs/platform',
};
