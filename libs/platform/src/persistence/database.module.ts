import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions, type Migration, type MixedList } from 'typeorm';
import { ServiceEnv } from '../config/env';
import { connectionFailure } from '../config/url-credentials';
import { IdempotencyKeysJanitor } from '../idempotency/idempotency-janitor';
import { joinRequestTransactions } from '../idempotency/request-transaction';
import { refreshCachedPlans } from './plan-refresh';

export interface DatabaseOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
}

/**
 * How long an idle pool connection is kept (pg-pool's default is 10 s). A burst after a quiet
 * spell otherwise found the pool empty: up to 20 new backends opened at once, each cold, each
 * preparing the named statements again; requests waited seconds and creates ran into the
 * 5 s connection timeout (bench:api's open loop, docs/benchmarks.md). Five minutes keeps the
 * pool through ordinary lulls and still gives connections back when a service is idle.
 */
export const POOL_IDLE_MS = 300_000;

/** Builds the TypeORM options of a service: its own database, migrations only, never synchronize. */
export function dataSourceOptions(url: string, opts: DatabaseOptions, migrationsRun: boolean) {
  return {
    type: 'postgres' as const,
    url,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsRun,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    extra: { max: 20, connectionTimeoutMillis: 5000, idleTimeoutMillis: POOL_IDLE_MS },
  };
}

/**
 * Connects a data source, whose connections' cached plans follow the tables (refreshCachedPlans);
 * when the database cannot be reached, the error names DATABASE_URL and shows it without its
 * password (connectionFailure).
 */
export async function connectDatabase(options: DataSourceOptions): Promise<DataSource> {
  const ds = await new DataSource(options).initialize().catch((err: unknown) => {
    throw connectionFailure('the database', 'DATABASE_URL', (options as { url?: string }).url ?? '', err);
  });
  refreshCachedPlans(ds);
  return ds;
}

/** Key of the advisory lock that serialises migrations of one database across replicas. */
const MIGRATION_LOCK_KEY = 7_261_001;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so
 * replicas starting together (or a migration job racing a booting app) run
 * them one after the other: the second finds nothing left to do.
 */
export async function migrateWithLock(ds: DataSource): Promise<Migration[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await ds.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}

/** The service's TypeORM connection, configured from DATABASE_URL. */
@Module({})
export class DatabaseModule {
  static forRoot(opts: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [ServiceEnv],
          useFactory: (env: ServiceEnv) => ({
            ...dataSourceOptions(env.DATABASE_URL, opts, false),
            migrateOnStart: env.DB_MIGRATE_ON_START,
          }),
          dataSourceFactory: async (options) => {
            const { migrateOnStart, ...rest } = options as DataSourceOptions & { migrateOnStart: boolean };
            const ds = await connectDatabase(rest);
            joinRequestTransactions(ds);
            if (migrateOnStart) await migrateWithLock(ds);
            return ds;
          },
        }),
      ],
      providers: [IdempotencyKeysJanitor],
    };
  }
}
