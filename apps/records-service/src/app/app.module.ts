import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { RecordsEnv } from '../config/records.env';
import { MIGRATIONS } from '../migrations';
import { ActivityLogModule } from './activity-log/activity-log.module';
import { BrandingModule } from './branding/branding.module';
import { ENTITIES } from './entities';
import { FilesModule } from './files/files.module';
import { RecordsModule } from './records/records.module';
import { VaultsModule } from './vaults/vaults.module';

@Module({
  imports: [
    PlatformModule.forRoot({ name: 'records-service', env: RecordsEnv, kind: 'service' }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
    VaultsModule,
    BrandingModule,
    RecordsModule,
    FilesModule,
    ActivityLogModule,
  ],
})
export class AppModule {}
