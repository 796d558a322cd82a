import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { RecordsEnv } from '../config/records.env';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../migrations';

@Module({
  imports: [
    PlatformModule.forRoot({ name: 'records-service', env: RecordsEnv, kind: 'service' }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
  ],
})
export class AppModule {}
