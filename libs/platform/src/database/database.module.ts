import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MixedList } from 'typeorm';
import { ServiceEnv } from '../config/env';

export interface DatabaseOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
}

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
    extra: { max: 20, connectionTimeoutMillis: 5000 },
  };
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
          useFactory: (env: ServiceEnv) =>
            dataSourceOptions(env.DATABASE_URL, opts, env.DB_MIGRATE_ON_START),
        }),
      ],
    };
  }
}
