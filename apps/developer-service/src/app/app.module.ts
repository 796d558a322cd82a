import { Module } from '@nestjs/common';
import { PlatformModule } from '@vault/platform/bootstrap';
import { DatabaseModule } from '@vault/platform/persistence';
import { BrowserOriginsModule } from '../capabilities/browser-origins/browser-origins.module';
import { ClosedIdentitiesModule } from '../capabilities/closed-identities/closed-identities.module';
import { LogoutsModule } from '../capabilities/logouts/logouts.module';
import { DeveloperEnv } from '../config/developer.env';
import { AuthModule } from '../features/auth/auth.module';
import { BootstrapModule } from '../features/bootstrap/bootstrap.module';
import { DiscoveryModule } from '../features/discovery/discovery.module';
import { JwksModule } from '../features/jwks/jwks.module';
import { TestTokensModule } from '../features/test-tokens/test-tokens.module';
import { MIGRATIONS } from '../migrations';
import { ENTITIES } from '../persistence/entities';

@Module({
  imports: [
    PlatformModule.forRoot({
      name: 'developer-service',
      env: DeveloperEnv,
      kind: 'identity',
    }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
    BootstrapModule,
    BrowserOriginsModule,
    ClosedIdentitiesModule,
    LogoutsModule,
    JwksModule,
    AuthModule,
    DiscoveryModule,
    TestTokensModule,
  ],
})
export class AppModule {}
