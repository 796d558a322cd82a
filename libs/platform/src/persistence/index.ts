/** Persistence: the TypeORM connection of a service, migrations under an advisory lock, Transactions. */
export * from './database.module';
export * from './transactions';
export * from './plan-refresh';
export * from './statement-names';
