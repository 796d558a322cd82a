import type { DatabaseTemplate } from '../database-template';
import { TEMPLATE_KEY } from './database-template.setup';

/** jest `globalTeardown` of a service app: drops the templates its globalSetup created. */
export default async function teardownDatabaseTemplate(): Promise<void> {
  const templates = (globalThis as Record<symbol, DatabaseTemplate[] | undefined>)[TEMPLATE_KEY] ?? [];
  while (templates.length) await templates.pop()?.drop();
}
