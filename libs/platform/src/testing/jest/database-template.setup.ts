import { createDatabaseTemplate, DatabaseTemplate } from '../database-template';

/** The run's template, for the teardown (jest runs both hooks in its main process). */
export const TEMPLATE_KEY = Symbol.for('vault.testing.databaseTemplate');

/**
 * jest `globalSetup` of a service app: creates the app's migrated test database template
 * for this run (see createDatabaseTemplate); `database-template.teardown.ts` drops it.
 */
export default async function setupDatabaseTemplate(_global: unknown, project: { rootDir: string }): Promise<void> {
  const templates = ((globalThis as Record<symbol, DatabaseTemplate[] | undefined>)[TEMPLATE_KEY] ??= []);
  templates.push(await createDatabaseTemplate(project.rootDir));
}
