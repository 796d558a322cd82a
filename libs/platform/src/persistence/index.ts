/** Persistence: the TypeORM connection of a service, migrations under an advisory lock. */
export * from './database.module';
