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
  // Two files at a time (jest's default is one worker fewer than the cores: a single one
  // on a 2-core machine). The specs wait much of their time on PostgreSQL, NATS, child
  // processes and timers, and each has its own databases, event namespaces and ports; with
  // three the 2-core CI machine was already CPU-bound (no shorter, more contention).
  maxWorkers: 2,
  // The long spec files first, also on a fresh clone (test/slow-first.sequencer.cjs).
  testSequencer: '<rootDir>/test/slow-first.sequencer.cjs',
  // One migrated database per run, copied for each test database (test/records-database.ts),
  // and a SoftHSM2 token directory of the run's own (SOFTHSM2_CONF).
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
