import { createTestDatabase, TestDatabase } from '@vault/platform/testing';

/**
 * A fresh database for records-service with every migration already applied: a copy of
 * this jest run's migrated template (jest.config.cts globalSetup). The app's start finds
 * nothing left to migrate.
 */
export function createRecordsDatabase(prefix: string): Promise<TestDatabase> {
  return createTestDatabase(prefix, { template: 'records-service' });
}
