import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { UserEnv } from '../config/user.env';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../migrations';

@Module({
  imports: [
    PlatformModule.forRoot({ name: 'user-service', env: UserEnv, kind: 'service' }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
  ],
})
export class AppModule {}
