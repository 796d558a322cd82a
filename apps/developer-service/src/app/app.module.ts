import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { AuthModule } from '../auth/auth.module';
import { BootstrapModule } from '../bootstrap/bootstrap.module';
import { ClosedIdentitiesModule } from '../closed-identities/closed-identities.module';
import { DeveloperEnv } from '../config/developer.env';
import { KeysModule } from '../keys/keys.module';
import { MIGRATIONS } from '../migrations';
import { TestTokensModule } from '../test-tokens/test-tokens.module';
import { ENTITIES } from './entities';

@Module({
  imports: [
    PlatformModule.forRoot({
      name: 'developer-service',
      env: DeveloperEnv,
      kind: 'identity',
    }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
    BootstrapModule,
    ClosedIdentitiesModule,
    KeysModule,
    AuthModule,
    TestTokensModule,
  ],
})
export class AppModule {}
